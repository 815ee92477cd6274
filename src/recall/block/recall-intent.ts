/**
 * Phrases that mark a message as asking about data already shown (R-RC-5). Kept in one
 * place so the eval scenarios can be re-run against every change. Case-insensitive and
 * word-bounded; no `g` flag, whose lastIndex would make `test` stateful.
 */
export const RECALL_INTENT_PATTERNS: readonly RegExp[] = [
  /\blast time\b/i,
  /\bpreviously\b/i,
  /\bearlier\b/i,
  /\bbefore\b/i,
  /\bagain\b/i,
  /\bwhat did\b/i,
  /\byou (?:showed|shown|gave|told|sent|pulled|fetched|found|listed|mentioned|said)\b/i,
  /\bdid you (?:show|give|tell|send|pull|fetch|find|list|mention|say)\b/i,
  /\b(?:remind me|recap)\b/i,
  /\bwe (?:looked at|discussed|talked about|saw)\b/i,
  /\bthe (?:previous|last|same) (?:numbers?|data|results?|list|report|chart|query|figures?)\b/i,
];

/**
 * How much of each end of a message is read: the question sits at the start or the end of what
 * a user sends, and a document pasted between them is not scanned (a message of megabytes costs
 * what one of 2 × 2,000 characters does).
 */
export const INTENT_READ_CHARS = 2000;

export function looksLikeRecall(message: string | null | undefined): boolean {
  if (typeof message !== 'string' || message.length === 0) return false;
  const ends =
    message.length <= 2 * INTENT_READ_CHARS ? [message] : [message.slice(0, INTENT_READ_CHARS), message.slice(-INTENT_READ_CHARS)];
  return RECALL_INTENT_PATTERNS.some((pattern) => ends.some((text) => pattern.test(text)));
}
