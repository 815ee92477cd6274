import type { Tokenizer } from '../common/text/tokenizer';

/** Every recall answer that is cut ends with one line starting with this. */
export const CONTINUE_MARKER_PREFIX = '[… more: continue with ';

/** The smallest token bound a caller may ask for: the marker line alone takes ~50 tokens. */
export const MIN_ANSWER_TOKENS = 100;

export interface WindowLimits {
  /** Most tokens of the whole answer, the marker line included. */
  maxTokens: number;
  /** Most characters of the window itself (the marker line is extra). */
  maxChars: number;
}

/** `text` is the whole answer, or only its start (a JSON value fetched in part), of about this size. */
export type WholeText = { complete: true } | { complete: false; approximateChars: number };

/** How to name the call that reads on from an offset, e.g. `recall_tool_result(mem_id='…', offset=N)`. */
export type NextCall = (offset: number) => string;

// A window is first sized at this many characters per token, then fitted to the token bound.
const FIRST_GUESS_CHARS_PER_TOKEN = 6;
// A fitted window fills at least this share of its token room, so a walk takes ⌈tokens/bound⌉ + 1 calls at most.
const FILL_TARGET = 0.97;
const MAX_FIT_ROUNDS = 8;

/**
 * The part of `text` from `offset` on that fits both bounds, cut at a code-point boundary. When
 * more follows, the answer ends with one marker line naming the exact call that reads on, and the
 * total size: concatenating the windows of a walk from offset 0 gives `text` back exactly.
 */
export function windowAnswer(
  text: string,
  offset: number,
  limits: WindowLimits,
  nextCall: NextCall,
  tokenizer: Tokenizer,
  whole: WholeText = { complete: true },
): string {
  const start = Math.min(offset, text.length);
  const maxEnd = codePointFloor(text, Math.min(text.length, start + limits.maxChars), start);
  // The whole rest, when it fits, needs no marker.
  if (whole.complete && maxEnd === text.length && tokenizer.count(text.slice(start)) <= limits.maxTokens) return text.slice(start);

  const total = whole.complete ? String(text.length) : `≈${whole.approximateChars}`;
  const answerFor = (end: number): string => `${text.slice(start, end)}\n${continueMarker(nextCall(end), start, end, total)}`;
  const markerTokens = tokenizer.count(`\n${continueMarker(nextCall(maxEnd), start, maxEnd, total)}`);
  const room = Math.max(1, limits.maxTokens - markerTokens);

  // The longest window found that fits; at least one code point, so a walk always moves on.
  let best = codePointFloor(text, start + 1, start, true);
  let length = Math.min(maxEnd - start, room * FIRST_GUESS_CHARS_PER_TOKEN);
  for (let round = 0; round < MAX_FIT_ROUNDS && length > 0; round += 1) {
    const end = codePointFloor(text, start + length, start);
    const tokens = tokenizer.count(text.slice(start, end));
    const fits = tokens <= room;
    if (fits) best = Math.max(best, end);
    if (fits && (end === maxEnd || tokens >= FILL_TARGET * room)) break;
    if (end === start) break;
    // A proportional step toward the room: shrink when over, grow when well under.
    length = Math.min(maxEnd - start, Math.floor(((end - start) * room * (fits ? 1 : 0.98)) / Math.max(1, tokens)));
  }
  // BPE may merge across the join; the whole answer is what must fit.
  while (best > start + 1 && tokenizer.count(answerFor(best)) > limits.maxTokens) {
    best = codePointFloor(text, start + Math.floor((best - start) * 0.95), start, true);
  }
  return answerFor(best);
}

/** `[… more: continue with <call>; chars 0–32000 of 363155 shown]`. */
export function continueMarker(call: string, start: number, end: number, total: number | string): string {
  return `${CONTINUE_MARKER_PREFIX}${call}; chars ${start}–${end} of ${total} shown]`;
}

/**
 * `index` moved back off the second half of a surrogate pair, never below `start`; with
 * `atLeastOne`, a window at `start` still takes its whole first code point.
 */
function codePointFloor(text: string, index: number, start: number, atLeastOne = false): number {
  let end = Math.min(index, text.length);
  if (end > start && end < text.length && isLowSurrogate(text.charCodeAt(end)) && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  if (atLeastOne && end <= start && start < text.length) {
    end = start + (isHighSurrogate(text.charCodeAt(start)) && isLowSurrogate(text.charCodeAt(start + 1)) ? 2 : 1);
  }
  return end;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
