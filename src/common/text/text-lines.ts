/**
 * Lines in `text` as a line range reads them (R-LG-2): a final line without a newline counts, a
 * trailing newline starts none (`'a\nb\n'` and `'a\nb'` have 2, `''` has 0, `'\n'` has 1).
 */
export function countLines(text: string): number {
  let breaks = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) breaks += 1;
  return text.length === 0 || text.endsWith('\n') ? breaks : breaks + 1;
}
