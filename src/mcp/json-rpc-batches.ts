/** The first MCP revision without JSON-RPC batching (it was removed in the 2025-06-18 specification). */
export const BATCHES_REMOVED_IN = '2025-06-18';

/** The revision the SDK assumes when a request carries no `MCP-Protocol-Version` header. */
const VERSION_WITHOUT_HEADER = '2025-03-26';

/**
 * Whether a POST body is a JSON-RPC batch that its protocol revision no longer allows. Revisions are
 * dates and compare as text. A header that is no date is left to the SDK, which refuses versions it
 * does not know; older revisions keep their batches (the SDK caps their length).
 */
export function isRemovedBatch(body: unknown, protocolVersionHeader: string | string[] | undefined): boolean {
  if (!Array.isArray(body)) return false;
  const version = typeof protocolVersionHeader === 'string' ? protocolVersionHeader.trim() : VERSION_WITHOUT_HEADER;
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= BATCHES_REMOVED_IN;
}
