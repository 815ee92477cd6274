import { countLines, type Line, lineAt, lineOffset } from '../common/text/text-lines';
import type { PrefixTokenizer } from '../common/text/tokenizer';
import { CONTINUE_MARKER_PREFIX, type WindowLimits } from './answer-window';
import { fitRows, lineInPart, type LinePart, numberedLine, type Rows, rowsAnswer } from './numbered-window';

/** How a line-range answer names the calls that read on. */
export interface LineCalls {
  /** The call that reads on from a line: `recall_tool_result(mem_id='…', line_start=N[, line_count=M][, max_tokens=…])`. */
  lines(lineStart: number, lineCount: number | null): string;
  /** The call that reads the payload's characters on from `offset` (used for the rest of one line too long for an answer). */
  chars(offset: number): string;
}

/** The bracketed answer for a line_start/line_count pair that can never be valid, else null. */
export function lineArgumentProblem(lineStart: number, lineCount: number | null): string | null {
  if (!isPositiveInteger(lineStart)) return `[tool_memory bad range: line_start must be a positive integer, got ${String(lineStart)}]`;
  if (lineCount !== null && !isPositiveInteger(lineCount)) {
    return `[tool_memory bad range: line_count must be a positive integer, got ${String(lineCount)}]`;
  }
  return null;
}

/**
 * Lines `lineStart`… of `text` (the payload as the model saw it), numbered like `cat -n`:
 * - Lines are 1-based. A line ends at `\n`; a `\r` right before the `\n` is part of the break, not
 *   of the line, and a lone `\r` stays in its line. A final line without a newline is a line; a
 *   trailing newline starts no extra line: `'a\nb\n'` and `'a\nb'` have 2 lines, `''` has none,
 *   `'\n'` has one empty line.
 * - Each line is shown as `String(n).padStart(6) + '\t' + line`, the lines joined by `\n`, with no
 *   trailing newline.
 * - `lineCount` null reads to the last line. The answer holds as many whole lines from `lineStart`
 *   as fit both bounds: the whole answer, marker included, within `limits.maxTokens` tokens, and
 *   the numbered lines within `limits.maxChars` characters (the marker is extra).
 * - While lines of the requested range remain, the answer ends with one marker line naming the
 *   call that reads on with the rest of the count (null when `lineCount` was null):
 *   `[… more: continue with <lines(231, null)>; lines 1–230 of 10000 shown]`. A complete range
 *   has no marker.
 * - A first line too long for one answer is shown in part: as much of its start as fits, cut at a
 *   code point, still numbered. Its marker names the call for the rest of it (`chars(offset)`,
 *   `offset` the index in `text` where the shown part ends) and the index where the line ends,
 *   then, if requested lines follow, the call for them: `[… more: continue with <chars(4030)> for
 *   the rest of line 3 (it ends at char 204817), then <lines(4, null)>; lines 3–3 of 5 shown in part]`.
 * - The first line's first code point (an empty first line whole) is shown even where the bounds
 *   are too small for it, so a walk always moves on.
 * - Bad arguments and a `lineStart` past the last line are answered with a bracketed text.
 * Cost: the text is scanned for line breaks (linear, no array of lines); only the lines the answer
 * holds, and the one that did not fit as far as the room reaches, are tokenized, then the answer
 * once more, whole.
 */
export function lineWindowAnswer(
  text: string,
  lineStart: number,
  lineCount: number | null,
  limits: WindowLimits,
  calls: LineCalls,
  tokenizer: PrefixTokenizer,
): string {
  const problem = lineArgumentProblem(lineStart, lineCount);
  if (problem !== null) return problem;
  const total = countLines(text);
  const pastTheEnd = lineStartProblem(lineStart, total);
  if (pastTheEnd !== null) return pastTheEnd;

  const wanted = Math.min(total - lineStart + 1, lineCount ?? Infinity);
  const lines: Line[] = [];
  const rows: Rows = {
    count: wanted,
    head: null,
    row: (index) => {
      for (let at = lines.length; at <= index; at += 1)
        lines.push(lineAt(text, at === 0 ? lineOffset(text, lineStart) : lines[at - 1].next));
      const line = lines[index];
      return numberedLine(lineStart + index, text.slice(line.from, line.end));
    },
    marker: (shown) => {
      const remaining = lineCount === null ? null : lineCount - shown;
      return `${CONTINUE_MARKER_PREFIX}${calls.lines(lineStart + shown, remaining)}; lines ${lineStart}–${lineStart + shown - 1} of ${total} shown]`;
    },
  };
  const fitted = fitRows(rows, limits, tokenizer);
  if (fitted !== null) return fitted;

  // Not even the first line fits (fitRows read it): it is shown in part.
  const [line] = lines;
  const nextLines = wanted > 1 ? calls.lines(lineStart + 1, lineCount === null ? null : lineCount - 1) : null;
  const then = nextLines === null ? '' : `, then ${nextLines}`;
  const part: LinePart = {
    head: numberedLine(lineStart, ''),
    headChars: numberedLine(lineStart, '').length,
    chars: (offset) => calls.chars(offset),
    marker: (end) =>
      `${CONTINUE_MARKER_PREFIX}${calls.chars(end)} for the rest of line ${lineStart} (it ends at char ${line.end})${then}; ` +
      `lines ${lineStart}–${lineStart} of ${total} shown in part]`,
  };
  return lineInPart(text, line, part, limits, tokenizer) ?? rowsAnswer(rows, 1);
}

/** The bracketed answer for a first line past the last one, else null. */
export function lineStartProblem(lineStart: number, total: number): string | null {
  return lineStart > total
    ? `[tool_memory bad range: line_start ${lineStart} is past the end (${total} line${total === 1 ? '' : 's'})]`
    : null;
}

function isPositiveInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}
