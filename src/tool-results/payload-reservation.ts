import { StoredJson } from '../common/json/stored-json';
import { ResponseTooLargeError } from '../common/errors/app-error';
import type { RequestBudget } from '../observability/request-context';
import type { SnapshotColumns, ToolResultSnapshot } from './tool-result-snapshot';

/**
 * Reserves `bytes` payload bytes in the request's budget, or refuses the whole read with
 * RESPONSE_TOO_LARGE when the request would pass `maxBytes` (RESPONSE_MAX_PAYLOAD_BYTES). Check and
 * add happen in one synchronous step, so resolvers of one request running side by side (aliases,
 * an MCP batch) cannot together overshoot. No budget (outside a request): nothing to bound.
 */
export function reservePayloadBytes(budget: RequestBudget | undefined, bytes: number, maxBytes: number): void {
  if (budget === undefined || bytes === 0) return;
  const requestedBytes = budget.payloadBytes + bytes;
  if (requestedBytes > maxBytes) throw new ResponseTooLargeError(maxBytes, requestedBytes);
  budget.payloadBytes = requestedBytes;
}

/**
 * At least the bytes these snapshots' payloads take on the wire, known before they are read: the
 * output's stored size in characters and, when the input is selected, its measured size (or its
 * length when already loaded). A character is at least one byte in JSON's UTF-8, escaped or not.
 */
export function payloadBytesAtLeast(snapshots: readonly ToolResultSnapshot[], columns: SnapshotColumns): number {
  let bytes = 0;
  for (const snapshot of snapshots) {
    if (columns.output) bytes += snapshot.sizeChars;
    if (columns.input) bytes += snapshot.inputChars ?? jsonChars(snapshot.toolInput);
  }
  return bytes;
}

/**
 * The bytes these snapshots' selected payloads take in the response, exactly: each value as JSON
 * (escapes included, `\u0001` is six bytes) in UTF-8, as the GraphQL response serializes it; a
 * stored one as the text it is spliced in as.
 */
export function payloadWireBytes(snapshots: readonly ToolResultSnapshot[], columns: SnapshotColumns): number {
  let bytes = 0;
  for (const snapshot of snapshots) {
    if (columns.output) bytes += jsonBytes(snapshot.toolOutput);
    if (columns.input) bytes += jsonBytes(snapshot.toolInput);
  }
  return bytes;
}

function jsonChars(value: unknown): number {
  return value instanceof StoredJson ? value.text.length : (JSON.stringify(value) ?? '').length;
}

function jsonBytes(value: unknown): number {
  // A stored payload goes out as its stored text (stringifyWithStoredJson).
  if (value instanceof StoredJson) return value.bytes;
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}
