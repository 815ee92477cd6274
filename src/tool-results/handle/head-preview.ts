import { keepCodePoints } from '../../common/text/text-bounds';

export const HEAD_PREVIEW_MAX_CHARS = 120;

/**
 * The first ~120 characters of a payload on one line (whitespace runs collapsed), with `…` when
 * more follows; null when there is nothing but whitespace. Scans only the head, so a 2 MiB
 * payload costs no more than a short one.
 */
export function headPreview(payloadText: string): string | null {
  let head = '';
  let pendingSpace = false;
  let index = 0;
  // Collect one code point beyond the limit, so we know whether anything was cut.
  while (index < payloadText.length && head.length <= HEAD_PREVIEW_MAX_CHARS) {
    const codePoint = payloadText.codePointAt(index) ?? 0;
    const char = String.fromCodePoint(codePoint);
    index += char.length;
    if (/[\s\p{Cc}]/u.test(char)) {
      pendingSpace = head.length > 0;
      continue;
    }
    if (pendingSpace) head += ' ';
    pendingSpace = false;
    head += char;
  }
  if (head.length === 0) return null;
  // The loop only stops early once the head overflows; trailing whitespace alone is no cut.
  if (head.length <= HEAD_PREVIEW_MAX_CHARS) return head;
  const points = Array.from(head);
  // Always cuts at least one code point, so the `…` replaces text and the result stays ≤ 120.
  return keepCodePoints(points, Math.min(points.length, HEAD_PREVIEW_MAX_CHARS) - 1);
}
