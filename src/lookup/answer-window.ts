import { fitsUncounted, type PrefixTokenizer } from '../common/text/tokenizer';

/** Every lookup answer that is cut ends with one line starting with this. */
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

// Counted in pieces of about this many characters, cut where the counts add up exactly.
const PIECE_CHARS = 1024;
// Where a window search with no count yet aims first: about what ordinary text and JSON take.
const FIRST_CHARS_PER_TOKEN = 4;
// Cut answers kept with a text's pieces: enough for a few agents re-asking windows of one result.
const REMEMBERED_ANSWERS = 4;
const REMEMBERED_ANSWER_MAX_CHARS = 65_536;

/**
 * The part of `text` from `offset` on that fits both bounds, cut at a code-point boundary: the
 * longest that fits. When more follows, the answer ends with one marker line naming the exact call
 * that reads on, and the total size: concatenating the windows of a walk from offset 0 gives `text`
 * back exactly. Tokens are counted piece by piece from `offset`, and only as far as the bound
 * reaches: a 360 KB payload costs the count of one window, not of the whole.
 */
export function windowAnswer(
  text: string,
  offset: number,
  limits: WindowLimits,
  nextCall: NextCall,
  tokenizer: PrefixTokenizer,
  whole: WholeText = { complete: true },
  pieces: TokenPieces = new TokenPieces(text, tokenizer),
): string {
  const start = Math.min(offset, text.length);
  const maxEnd = codePointFloor(text, Math.min(text.length, start + limits.maxChars), start);
  const prefix = new PrefixTokens(start, pieces, tokenizer);
  // The whole rest, when it fits, needs no marker; a short one is known to fit without counting it.
  if (whole.complete && maxEnd === text.length) {
    const rest = text.slice(start);
    if (fitsUncounted(tokenizer, rest, limits.maxTokens) || prefix.tokensTo(maxEnd, limits.maxTokens) <= limits.maxTokens) return rest;
  }

  const total = whole.complete ? String(text.length) : `≈${whole.approximateChars}`;
  // The same window asked again (a retry, another agent on the same result) is answered as before.
  const key = `${start}|${limits.maxTokens}|${limits.maxChars}|${total}|${nextCall(0)}`;
  const known = pieces.answerFor(key);
  if (known !== undefined) return known;
  const answerFor = (end: number): string => `${text.slice(start, end)}\n${continueMarker(nextCall(end), start, end, total)}`;
  const markerTokens = tokenizer.count(`\n${continueMarker(nextCall(maxEnd), start, maxEnd, total)}`);
  const room = Math.max(1, limits.maxTokens - markerTokens);

  // At least one code point, so a walk always moves on.
  let best = Math.max(codePointFloor(text, start + 1, start, true), prefix.longestWithin(maxEnd, room));
  // BPE may merge across the join; the whole answer is what must fit.
  while (best > start + 1 && prefix.answerTokens(answerFor(best), best, limits.maxTokens) > limits.maxTokens) {
    best = codePointFloor(text, start + Math.floor((best - start) * 0.95), start, true);
  }
  return pieces.remember(key, answerFor(best));
}

/**
 * A text cut into pieces from offset 0 at the tokenizer's boundaries (about every PIECE_CHARS
 * characters), where counts add up exactly, and each piece's token count once it is asked for.
 * Kept with a text read window after window (the served-text cache), a walk counts each piece once.
 */
export class TokenPieces {
  /** Piece starts, ascending; piece i is text[starts[i], starts[i + 1]), the last one ending at text.length. */
  private readonly starts: number[] = [0];
  private readonly counts: number[] = [];
  /** The last few cut answers over this text, by their arguments. */
  private readonly answers = new Map<string, string>();

  constructor(
    readonly text: string,
    private readonly tokenizer: PrefixTokenizer,
  ) {}

  /** The piece holding character `at` (below text.length), its boundaries found as far as needed. */
  indexAt(at: number): number {
    for (let last = this.starts[this.starts.length - 1]; last <= at && last < this.text.length;) {
      last = this.tokenizer.boundaryFrom(this.text, last + PIECE_CHARS);
      this.starts.push(last);
    }
    let low = 0;
    let high = this.starts.length - 1;
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      if (this.starts[middle] <= at) low = middle;
      else high = middle;
    }
    return this.starts[high] <= at ? high : low;
  }

  start(index: number): number {
    return this.starts[index];
  }

  end(index: number): number {
    return this.starts[index + 1] ?? this.text.length;
  }

  answerFor(key: string): string | undefined {
    return this.answers.get(key);
  }

  remember(key: string, answer: string): string {
    if (answer.length > REMEMBERED_ANSWER_MAX_CHARS) return answer;
    if (this.answers.size >= REMEMBERED_ANSWERS) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(key, answer);
    return answer;
  }

  tokens(index: number): number {
    this.counts[index] ??= this.tokenizer.count(this.text.slice(this.start(index), this.end(index)));
    return this.counts[index];
  }
}

/**
 * Token counts of a text from `start` to any end, kept per piece: the count up to an end is the
 * sum of the pieces before it plus the count of the rest. Pieces are counted only as far as a
 * question needs, and a piece counted before (a text kept with its pieces) is not counted again.
 */
class PrefixTokens {
  /** Piece ends, ascending, from `start`; `totals[i]` is the count of text[start, ends[i]). */
  private readonly ends: number[];
  private readonly totals: number[] = [0];
  private readonly text: string;
  private lastCount?: { from: number; end: number; tokens: number };

  constructor(
    private readonly start: number,
    private readonly pieces: TokenPieces,
    private readonly tokenizer: PrefixTokenizer,
  ) {
    this.ends = [start];
    this.text = pieces.text;
  }

  /** Tokens of text[start, end): exact when at most `limit`, else some count above `limit`. */
  tokensTo(end: number, limit: number): number {
    const piece = this.pieceBefore(end, limit);
    if (this.totals[piece] > limit) return this.totals[piece];
    const from = this.ends[piece];
    // The whole-rest check and the window search may ask for the same long stretch: counted once.
    if (this.lastCount?.from !== from || this.lastCount.end !== end) {
      this.lastCount = { from, end, tokens: this.tokenizer.count(this.text.slice(from, end)) };
    }
    return this.totals[piece] + this.lastCount.tokens;
  }

  /** The longest end up to `maxEnd`, off a surrogate pair, whose window counts at most `room` tokens; `start` if none. */
  longestWithin(maxEnd: number, room: number): number {
    let piece = this.pieceBefore(maxEnd, room);
    while (piece > 0 && this.totals[piece] > room) piece -= 1;
    // Past the last piece that fits: within the next piece (a few characters), or up to maxEnd in
    // a text with no boundary (a run of one character), where each count starts at that piece's end.
    let fits = this.ends[piece];
    let fitsTokens = this.totals[piece];
    const upper = Math.min(maxEnd, this.ends[piece + 1] ?? maxEnd);
    if (upper <= fits) return fits;
    const [from, fromTokens] = [fits, fitsTokens];
    // Each probe is a count from `from`: few probes, not the twenty of a bisection. Until one is over
    // the room, aim a little past where the density so far reaches it (upper at most: a window of
    // 500,000 spaces is known in two counts); then interpolate, or halve after two steps that did not.
    let over = upper + 1;
    let overTokens = Infinity;
    let slowSteps = 0;
    while (over - fits > 1) {
      const width = over - fits;
      const bracketed = overTokens !== Infinity;
      let step: number;
      if (!bracketed) {
        const charsPerToken = fitsTokens > fromTokens ? (fits - from) / (fitsTokens - fromTokens) : FIRST_CHARS_PER_TOKEN;
        step = (room - fitsTokens + 1) * charsPerToken * 1.1;
      } else step = slowSteps >= 2 ? width / 2 : ((room - fitsTokens + 0.5) / Math.max(1, overTokens - fitsTokens)) * width;
      const probe = codePointFloor(this.text, fits + Math.min(width - 1, Math.max(1, Math.floor(step))), fits);
      if (probe <= fits) break;
      const tokens = this.tokensTo(probe, room);
      if (tokens <= room) [fits, fitsTokens] = [probe, tokens];
      else [over, overTokens] = [probe, tokens];
      slowSteps = bracketed && over - fits > width / 2 ? slowSteps + 1 : 0;
    }
    return fits;
  }

  /** Tokens of an answer that starts with text[start, windowEnd): the pieces before the window's last boundary, then the rest. */
  answerTokens(answer: string, windowEnd: number, limit: number): number {
    const piece = this.pieceBefore(windowEnd, limit);
    return this.totals[piece] + this.tokenizer.count(answer.slice(this.ends[piece] - this.start));
  }

  /** The last counted piece ending at or before `end`, counting more pieces while they end there and stay within `limit`. */
  private pieceBefore(end: number, limit: number): number {
    for (let last = this.ends.length - 1; this.ends[last] < end && this.totals[last] <= limit; last += 1) {
      const from = this.ends[last];
      const index = this.pieces.indexAt(from);
      const next = this.pieces.end(index);
      if (next > end) break;
      // The window's first piece starts mid-piece unless its offset is a boundary.
      const tokens = from === this.pieces.start(index) ? this.pieces.tokens(index) : this.tokenizer.count(this.text.slice(from, next));
      this.totals.push(this.totals[last] + tokens);
      this.ends.push(next);
    }
    let piece = this.ends.length - 1;
    while (piece > 0 && this.ends[piece] > end) piece -= 1;
    return piece;
  }
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
