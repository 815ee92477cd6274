import { lineAt, lineOffsetBefore } from '../../common/text/text-lines';
import type { PrefixTokenizer } from '../../common/text/tokenizer';
import { CONTINUE_MARKER_PREFIX, type WindowLimits } from '../answer-window';
import type { LineCalls } from '../line-window';
import { fitRows, lineInPart, type LinePart, numberedLine, type Rows, rowsAnswer } from '../numbered-window';

/** The longest pattern read at all: it is compiled on every call. */
export const PATTERN_MAX_CHARS = 1_000;
/** Most lines of context before and after each matching line. */
const CONTEXT_LINES_MAX = 50;
/** Most milliseconds a pattern's compile and search may run. */
export const PATTERN_TIMEOUT_MS = 1_000;

/** A search's outcome: which of the searched lines match. */
export interface LineMatches {
  /** Lines in the text. */
  total: number;
  /** The lines searched, 1-based and inclusive. */
  lineStart: number;
  lineEnd: number;
  /** The matching lines, ascending, and where each starts in the text. */
  lines: readonly number[];
  starts: readonly number[];
}

/** How the search was asked: the context around each match, and the caller's line count (null: to the last line). */
export interface PatternSearch {
  contextLines: number;
  lineCount: number | null;
}

/** The bracketed answer for a context_lines that can never be valid, else null. */
export function contextLinesProblem(contextLines: number): string | null {
  return Number.isSafeInteger(contextLines) && contextLines >= 0 && contextLines <= CONTEXT_LINES_MAX
    ? null
    : `[tool_memory bad context_lines: must be an integer from 0 to ${CONTEXT_LINES_MAX}, got ${String(contextLines)}]`;
}

/**
 * The matching lines of a search, as `grep -n -C` shows them, within the answer's bounds (R-LG-2):
 * - The first line counts the matches: `[37 matching lines of 10000]`, or, when not every line
 *   was searched, `[37 matching lines in lines 5012–10000 of 10000]`. No match: that line alone.
 * - Each line shown is numbered like `cat -n` (the number right-aligned in 6 columns), then `:` for
 *   a matching line or `-` for a context line, a tab, the line: `  4998:\tGET /a 500`.
 * - `contextLines` lines before and after each match, within the searched lines; groups that
 *   touch or overlap are one group, and with context, groups are separated by a `--` line.
 * - The answer holds whole matches with their context, as many as fit; when more remain it ends
 *   with one marker line naming the call that searches on from the first line not shown:
 *   `[… more: continue with <lines(5012, null)>; 40 of 120 matching lines shown, up to line 5011]`.
 *   A cut falls only before a match's group, or right before a match inside one, so the next call
 *   shows exactly what follows: a walk shows every matching line once, and every context line.
 * - A first match too large with its context for one answer is shown without the lines before
 *   it, with as many after it as fit; a first matching line too long for an answer is shown in
 *   part, its marker naming the call for the rest of it and then, if more matches follow, the
 *   search from the line after it.
 * The count line and the marker are not counted in `limits.maxChars`; the whole answer is in
 * `limits.maxTokens`.
 */
export function patternWindowAnswer(
  text: string,
  found: LineMatches,
  search: PatternSearch,
  limits: WindowLimits,
  calls: LineCalls,
  tokenizer: PrefixTokenizer,
): string {
  const { lines: matches, starts, lineStart, lineEnd } = found;
  const { contextLines } = search;
  const head = countLine(found);
  if (matches.length === 0) return head;

  // Match k's rows start its group (after a gap) or right at it, and end before the next match
  // of its group or with its group's last context line.
  const startsGroup = (k: number) => k === 0 || matches[k] - contextLines > matches[k - 1] + contextLines + 1;
  const firstOf = (k: number) => (startsGroup(k) ? Math.max(lineStart, matches[k] - contextLines) : matches[k]);
  const lastOf = (k: number) =>
    k + 1 < matches.length && !startsGroup(k + 1) ? matches[k + 1] - 1 : Math.min(lineEnd, matches[k] + contextLines);
  const numbered = (k: number, first: number, last: number): string[] => {
    const shown: string[] = [];
    for (let number = first, from = lineOffsetBefore(text, starts[k], matches[k] - first); number <= last; number += 1) {
      const line = lineAt(text, from);
      shown.push(numberedLine(number, text.slice(line.from, line.end), number === matches[k] ? ':' : '-'));
      from = line.next;
    }
    return shown;
  };
  const group = (k: number): string => {
    const shown = numbered(k, firstOf(k), lastOf(k)).join('\n');
    return k > 0 && contextLines > 0 && startsGroup(k) ? `--\n${shown}` : shown;
  };
  const searchFrom = (next: number) => calls.lines(next, search.lineCount === null ? null : search.lineCount - (next - lineStart));
  const marker = (matchesShown: number, through: number) =>
    `${CONTINUE_MARKER_PREFIX}${searchFrom(through + 1)}; ${matchesShown} of ${matches.length} matching lines shown, up to line ${through}]`;

  const fitted = fitRows(
    { count: matches.length, head, row: group, marker: (shown) => marker(shown, lastOf(shown - 1)) },
    limits,
    tokenizer,
  );
  if (fitted !== null) return fitted;

  // The first match with its context does not fit: the match, then its lines after it one by one, then the next matches.
  const [first] = matches;
  const after = numbered(0, first, lastOf(0));
  const split: Rows = {
    count: after.length + matches.length - 1,
    head,
    row: (index) => (index < after.length ? after[index] : group(index - after.length + 1)),
    marker: (shown) =>
      shown <= after.length ? marker(1, first + shown - 1) : marker(shown - after.length + 1, lastOf(shown - after.length)),
  };
  const splitFitted = fitRows(split, limits, tokenizer);
  if (splitFitted !== null) return splitFitted;

  // Not even the matching line fits: it is shown in part.
  const line = lineAt(text, starts[0]);
  const then = matches.length > 1 ? `, then ${searchFrom(first + 1)}` : '';
  const lead = numberedLine(first, '', ':');
  const part: LinePart = {
    head: `${head}\n${lead}`,
    headChars: lead.length,
    chars: (offset) => calls.chars(offset),
    marker: (end) =>
      `${CONTINUE_MARKER_PREFIX}${calls.chars(end)} for the rest of line ${first} (it ends at char ${line.end})${then}; ` +
      `1 of ${matches.length} matching lines shown in part]`,
  };
  return lineInPart(text, line, part, limits, tokenizer) ?? rowsAnswer(split, 1);
}

/** `[37 matching lines of 10000]`, naming the searched lines when they are not all of them. */
function countLine(found: LineMatches): string {
  const count = `${found.lines.length} matching line${found.lines.length === 1 ? '' : 's'}`;
  const whole = found.lineStart === 1 && found.lineEnd === found.total;
  return whole ? `[${count} of ${found.total}]` : `[${count} in lines ${found.lineStart}–${found.lineEnd} of ${found.total}]`;
}
