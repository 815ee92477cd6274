import { createHash } from 'node:crypto';

/**
 * A UUID for the assistant message holding a tool_use when the client gave it none (or not a
 * UUID): derived from the conversation and the tool_use id, so every replica and every retry
 * attaches the snapshot to the same message. SHA-256 based, laid out as an RFC 9562 version 8
 * (custom) UUID.
 */
export function deterministicMessageId(conversationId: string, toolUseId: string): string {
  // JSON framing keeps ('a', 'bc') and ('ab', 'c') apart.
  const bytes = createHash('sha256')
    .update(JSON.stringify(['recall-ledger/assistant-message', conversationId, toolUseId]))
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
