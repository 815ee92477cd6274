/**
 * The one home of the text helpers the block, the handle fields and the stub share: one line,
 * bounded, cut on code points.
 */

/** One character marks elided text, so a bound of N characters stays exact. */
export const ELLIPSIS = '…';

// Whitespace runs and control characters (C0, C1; U+2028/2029 are in \s) would break a
// one-row-per-line layout, or let a field forge a line of its own.
const LINE_BREAKING = /[\s\p{Cc}]+/gu;

export function toSingleLine(text: string): string {
  return text.replace(LINE_BREAKING, ' ').trim();
}

/** The first `length` UTF-16 units, one fewer if that would split a surrogate pair. */
export function safeSlice(text: string, length: number): string {
  if (length <= 0) return '';
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

/** `text` if it fits in `maxChars`, else its start and an ellipsis, `maxChars` long at most. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return '';
  return safeSlice(text, maxChars - 1) + ELLIPSIS;
}

/** Single-line and at most `maxChars`; only a bounded window of a huge text is scanned. */
export function boundLine(text: string, maxChars: number): string {
  const windowed = text.length > maxChars * 4;
  const line = toSingleLine(windowed ? safeSlice(text, maxChars * 4) : text);
  if (!windowed) return clipText(line, maxChars);
  // The window cut the text: mark the elision even when what is left happens to fit.
  return line.length < maxChars ? line + ELLIPSIS : clipText(line + ELLIPSIS, maxChars);
}

/**
 * Keeps the first `keep` code points and marks the cut with `…` (so a surrogate pair is never
 * split). Text that already fits is returned unchanged.
 */
export function keepCodePoints(points: readonly string[], keep: number): string {
  if (keep >= points.length) return points.join('');
  return points.slice(0, Math.max(0, keep)).join('').trimEnd() + ELLIPSIS;
}

/**
 * A text cut to many lengths in code points (the stub's fitting loop): `keep` is
 * `keepCodePoints(Array.from(text), n)` as one slice, with no array of code points joined per cut.
 */
export class CodePointPrefixes {
  /** Length in code points. */
  readonly length: number;
  /** `ends[n]`: the UTF-16 length of the first `n` code points. */
  private readonly ends: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      // A high surrogate followed by a low one is one code point, as Array.from counts it.
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
      this.ends.push(i + 1);
    }
    this.length = this.ends.length - 1;
  }

  keep(keep: number): string {
    if (keep >= this.length) return this.text;
    return this.text.slice(0, this.ends[Math.max(0, keep)]).trimEnd() + ELLIPSIS;
  }
}

/** Bounds `text` to at most `max` code points, the `…` included. */
export function elide(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : keepCodePoints(points, max - 1);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
