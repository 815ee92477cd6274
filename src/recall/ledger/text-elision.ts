/** Text helpers shared by the handle fields and the stub: one line, bounded, cut on code points. */

export const ELLIPSIS = '…';

/** Collapses whitespace and control characters to one space, so a field can never forge a line. */
export function toSingleLine(text: string): string {
  return text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
}

/**
 * Keeps the first `keep` code points and marks the cut with `…` (so a surrogate pair is never
 * split). Text that already fits is returned unchanged.
 */
export function keepCodePoints(points: readonly string[], keep: number): string {
  if (keep >= points.length) return points.join('');
  return points.slice(0, Math.max(0, keep)).join('').trimEnd() + ELLIPSIS;
}

/** Bounds `text` to at most `max` code points, the `…` included. */
export function elide(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : keepCodePoints(points, max - 1);
}
