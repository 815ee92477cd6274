import { countLines } from '../common/text/text-lines';
import type { PrefixTokenizer } from '../common/text/tokenizer';
import { CONTINUE_MARKER_PREFIX, continueMarker, windowAnswer, type WindowLimits } from './answer-window';

/** How a line-range answer names the calls that read on. */
export interface LineCalls {
  /** The call that reads on from a line: `recall_tool_result(mem_id='…', line_start=N[, line_count=M][, max_tokens=…])`. */
  lines(lineStart: number, lineCount: number | null): string;
  /** The call that reads the payload's characters on from `offset` (used for the rest of one line too long for an answer). */
  chars(offset: number): string;
}

/** One line of the payload: its text is `text.slice(from, end)` (the break excluded); the line after it starts at `next`. */
interface Line {
  from: number;
  end: number;
  next: number;
}

// A line is counted in pieces of about this many characters, so a huge one is counted only as far as the room reaches.
const PIECE_CHARS = 4096;
// Rounds of adding lines into room the estimate left over; each costs one more count of the answer.
const GROW_ROUNDS = 2;
const CARRIAGE_RETURN = 0x0d;

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
  if (lineStart > total) return `[tool_memory bad range: line_start ${lineStart} is past the end (${total} line${total === 1 ? '' : 's'})]`;

  const wanted = Math.min(total - lineStart + 1, lineCount ?? Infinity);
  const lines: Line[] = [];
  const numbered: string[] = [];
  const counted: ({ tokens: number; limit: number } | undefined)[] = [];
  const read = (index: number): string => {
    for (let at = lines.length; at <= index; at += 1) {
      const line = lineAt(text, at === 0 ? lineOffset(text, lineStart) : lines[at - 1].next);
      lines.push(line);
      numbered.push(numberedLine(lineStart + at, text.slice(line.from, line.end)));
    }
    return numbered[index];
  };
  // Tokens a line adds to an answer, with the break after it unless it is the last requested:
  // o200k's pre-tokenizer never runs on from a `\n` into the next line's number or the marker, so
  // these add up to the answer's count (the exact count below catches what does not).
  const lineTokens = (index: number, limit: number): number => {
    const known = counted[index];
    if (known !== undefined && (known.tokens <= known.limit || known.tokens > limit)) return known.tokens;
    const tokens = tokensWithin(index + 1 < wanted ? `${read(index)}\n` : read(index), limit, tokenizer);
    counted[index] = { tokens, limit };
    return tokens;
  };
  const marker = (shown: number): string => {
    const remaining = lineCount === null ? null : lineCount - shown;
    return `${CONTINUE_MARKER_PREFIX}${calls.lines(lineStart + shown, remaining)}; lines ${lineStart}–${lineStart + shown - 1} of ${total} shown]`;
  };
  const answerFor = (shown: number): string => {
    const body = numbered.slice(0, shown).join('\n');
    return shown < wanted ? `${body}\n${marker(shown)}` : body;
  };
  // The marker's size varies with its numbers by a token or so; the fewest and most lines shown bound it.
  const markerTokens = wanted > 1 ? Math.max(tokenizer.count(marker(1)), tokenizer.count(marker(wanted - 1))) : 0;

  // Estimate: whole lines while their counts stay within the room.
  let shown = 0;
  for (let tokens = 0, chars = -1; shown < wanted; shown += 1) {
    const lineChars = 1 + read(shown).length;
    if (chars + lineChars > limits.maxChars) break;
    const more = shown + 1 < wanted;
    let room = limits.maxTokens - tokens - (more ? markerTokens : 0);
    let added = lineTokens(shown, room);
    // That marker bound is a token or two generous: at the edge, the exact marker decides.
    if (added > room && more) {
      room = limits.maxTokens - tokens - tokenizer.count(marker(shown + 1));
      added = lineTokens(shown, room);
    }
    if (added > room) break;
    tokens += added;
    chars += lineChars;
  }

  // Exact: the returned answer is what must fit, so it is counted whole; lines are dropped while it
  // is over, and added while the estimate left room (never up to a count already found over).
  let tooMany = wanted + 1;
  for (let round = 0; shown > 0;) {
    const answer = answerFor(shown);
    const tokens = tokenizer.count(answer);
    if (tokens > limits.maxTokens) {
      tooMany = shown;
      for (let excess = tokens - limits.maxTokens; shown > 0 && excess > 0;) {
        shown -= 1;
        excess -= lineTokens(shown, limits.maxTokens);
      }
      continue;
    }
    if (round >= GROW_ROUNDS) return answer;
    round += 1;
    let room = limits.maxTokens - tokens;
    let chars = answer.length - (shown < wanted ? marker(shown).length + 1 : 0);
    let grown = shown;
    while (grown + 1 < tooMany && grown < wanted) {
      const lineChars = 1 + read(grown).length;
      // The last requested line ends the marker too.
      const fits = room + (grown + 1 === wanted ? markerTokens : 0);
      if (chars + lineChars > limits.maxChars) break;
      const added = lineTokens(grown, fits);
      if (added > fits) break;
      room -= added;
      chars += lineChars;
      grown += 1;
    }
    if (grown === shown) return answer;
    shown = grown;
  }

  // The estimate read the first line: `wanted` is at least 1.
  const nextLines = wanted > 1 ? calls.lines(lineStart + 1, lineCount === null ? null : lineCount - 1) : null;
  return firstLineInPart(text, lines[0], lineStart, nextLines, total, limits, calls, tokenizer) ?? answerFor(1);
}

/**
 * The start of one line too long for an answer, numbered, and the marker naming the call for the
 * rest of it, then `nextLines` (the call for the requested lines after it, null if none).
 * windowAnswer fits the cut, with less room by the number and by how much longer our marker is
 * than its own; the answer is then counted whole. Null when the cut would hold the whole line
 * (bounds too small for any marker).
 */
function firstLineInPart(
  text: string,
  line: Line,
  number: number,
  nextLines: string | null,
  total: number,
  limits: WindowLimits,
  calls: LineCalls,
  tokenizer: PrefixTokenizer,
): string | null {
  const head = numberedLine(number, '');
  const then = nextLines === null ? '' : `, then ${nextLines}`;
  const marker = (end: number) =>
    `${CONTINUE_MARKER_PREFIX}${calls.chars(end)} for the rest of line ${number} (it ends at char ${line.end})${then}; ` +
    `lines ${number}–${number} of ${total} shown in part]`;
  const lineText = text.slice(line.from, line.end);
  // Below the line's length, so windowAnswer always cuts and marks the cut.
  const maxChars = Math.max(0, Math.min(lineText.length - 1, limits.maxChars - head.length));
  const nextCall = (end: number) => calls.chars(line.from + end);
  const theirs = tokenizer.count(`\n${continueMarker(nextCall(maxChars), 0, maxChars, lineText.length)}`);
  const ours = tokenizer.count(`\n${marker(line.from + maxChars)}`);
  let room = limits.maxTokens - tokenizer.count(head) - Math.max(0, ours - theirs);
  for (let previous = -1; ;) {
    const window = windowAnswer(lineText, 0, { maxTokens: room, maxChars }, nextCall, tokenizer);
    // A part of one line holds no `\n`: the first one starts windowAnswer's marker.
    const cut = window.indexOf('\n');
    const end = line.from + (cut < 0 ? window.length : cut);
    if (end >= line.end) return null;
    const answer = `${head}${text.slice(line.from, end)}\n${marker(end)}`;
    const over = tokenizer.count(answer) - limits.maxTokens;
    if (over <= 0 || end === previous) return answer;
    previous = end;
    room -= over;
  }
}

/** Tokens of `text`, exact when at most `limit`; counted piece by piece, it stops at some count above `limit`. */
function tokensWithin(text: string, limit: number, tokenizer: PrefixTokenizer): number {
  let tokens = 0;
  for (let from = 0; from < text.length && tokens <= limit;) {
    // Pieces end where the tokenizer says counts add up exactly.
    const to = tokenizer.boundaryFrom(text, from + PIECE_CHARS);
    tokens += tokenizer.count(text.slice(from, to));
    from = to;
  }
  return tokens;
}

function numberedLine(number: number, line: string): string {
  return `${String(number).padStart(6)}\t${line}`;
}

/** Where line `number` (1-based, known to exist) starts. */
function lineOffset(text: string, number: number): number {
  let from = 0;
  for (let line = 1; line < number; line += 1) from = text.indexOf('\n', from) + 1;
  return from;
}

/** The line starting at `from`: up to the next `\n`, less a `\r` right before it. */
function lineAt(text: string, from: number): Line {
  const newline = text.indexOf('\n', from);
  if (newline < 0) return { from, end: text.length, next: text.length };
  const end = newline > from && text.charCodeAt(newline - 1) === CARRIAGE_RETURN ? newline - 1 : newline;
  return { from, end, next: newline + 1 };
}

function isPositiveInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}
