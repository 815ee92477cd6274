/**
 * Lines in `text` as a line range reads them (R-LG-2): a final line without a newline counts, a
 * trailing newline starts none (`'a\nb\n'` and `'a\nb'` have 2, `''` has 0, `'\n'` has 1).
 */
export function countLines(text: string): number {
  let breaks = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) breaks += 1;
  return text.length === 0 || text.endsWith('\n') ? breaks : breaks + 1;
}

/** One line of a text: its text is `text.slice(from, end)` (the break excluded); the line after it starts at `next`. */
export interface Line {
  from: number;
  end: number;
  next: number;
}

const CARRIAGE_RETURN = 0x0d;

/** The line starting at `from`: up to the next `\n`, less a `\r` right before it (a CRLF break belongs to the break). */
export function lineAt(text: string, from: number): Line {
  const newline = text.indexOf('\n', from);
  if (newline < 0) return { from, end: text.length, next: text.length };
  const end = newline > from && text.charCodeAt(newline - 1) === CARRIAGE_RETURN ? newline - 1 : newline;
  return { from, end, next: newline + 1 };
}

/** Where line `number` (1-based, known to exist) starts. */
export function lineOffset(text: string, number: number): number {
  let from = 0;
  for (let line = 1; line < number; line += 1) from = text.indexOf('\n', from) + 1;
  return from;
}

/** Where the line `lines` lines before the one starting at `from` starts (`from` a line start; never before 0). */
export function lineOffsetBefore(text: string, from: number, lines: number): number {
  let start = from;
  for (let line = 0; line < lines && start > 0; line += 1) {
    // `start - 1` is the break ending the line before; that line starts after the break before it.
    start = start >= 2 ? text.lastIndexOf('\n', start - 2) + 1 : 0;
  }
  return start;
}
