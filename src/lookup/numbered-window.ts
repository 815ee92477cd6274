import type { Line } from '../common/text/text-lines';
import type { PrefixTokenizer } from '../common/text/tokenizer';
import { continueMarker, type NextCall, windowAnswer, type WindowLimits } from './answer-window';

/**
 * Answers made of numbered lines (a line range, a pattern search): as many whole rows as fit the
 * bounds, and one line too long for any answer shown in part.
 */

/** The rows of an answer, read in order and only as far as the room reaches. */
export interface Rows {
  /** How many rows there are to show. */
  readonly count: number;
  /** Row `index` (below `count`): one or more lines, without a trailing newline. */
  row(index: number): string;
  /** The marker line ending an answer that shows the first `shown` rows (1 ≤ shown < count). */
  marker(shown: number): string;
  /** A line every answer starts with, counted in tokens but not in characters (null: none). */
  readonly head: string | null;
}

/** How to show the start of one line too long for an answer. */
export interface LinePart {
  /** What the answer holds before the line's text: its number, and any line before it. */
  head: string;
  /** How many of `head`'s characters count in the character bound. */
  headChars: number;
  /** The call that reads the text's characters on from an offset. */
  chars: NextCall;
  /** The marker line when the part shown ends at `end` (an index in the text). */
  marker(end: number): string;
}

// A row is counted in pieces of about this many characters, so a huge one is counted only as far as the room reaches.
const PIECE_CHARS = 4096;
// Rounds of adding rows into room the estimate left over; each costs one more count of the answer.
const GROW_ROUNDS = 2;

/** `     7\tsome text` (`cat -n`), or with a mark after the number: `     7:\tsome text`. */
export function numberedLine(number: number, line: string, mark = ''): string {
  return `${String(number).padStart(6)}${mark}\t${line}`;
}

/** The answer showing the first `shown` rows: the head line, the rows, and the marker while rows remain. */
export function rowsAnswer(rows: Rows, shown: number): string {
  const body = Array.from({ length: shown }, (_, index) => rows.row(index)).join('\n');
  const head = rows.head === null ? '' : `${rows.head}\n`;
  return shown < rows.count ? `${head}${body}\n${rows.marker(shown)}` : `${head}${body}`;
}

/**
 * The answer holding as many whole rows as fit both bounds: the whole answer, marker included,
 * within `limits.maxTokens` tokens, and the rows within `limits.maxChars` characters (the head
 * and the marker are extra). Null when not even the first row fits.
 * Cost: only the rows the answer holds, and the one that did not fit as far as the room reaches,
 * are tokenized, then the answer once more, whole.
 */
export function fitRows(rows: Rows, limits: WindowLimits, tokenizer: PrefixTokenizer): string | null {
  const wanted = rows.count;
  const texts: string[] = [];
  const counted: ({ tokens: number; limit: number } | undefined)[] = [];
  const read = (index: number): string => {
    for (let at = texts.length; at <= index; at += 1) texts.push(rows.row(at));
    return texts[index];
  };
  // Tokens a row adds to an answer, with the break after it unless it is the last: o200k's
  // pre-tokenizer never runs on from a `\n` into the next line's number or the marker, so these
  // add up to the answer's count (the exact count below catches what does not).
  const rowTokens = (index: number, limit: number): number => {
    const known = counted[index];
    if (known !== undefined && (known.tokens <= known.limit || known.tokens > limit)) return known.tokens;
    const tokens = tokensWithin(index + 1 < wanted ? `${read(index)}\n` : read(index), limit, tokenizer);
    counted[index] = { tokens, limit };
    return tokens;
  };
  const head = rows.head === null ? '' : `${rows.head}\n`;
  const headTokens = head === '' ? 0 : tokenizer.count(head);
  const answerFor = (shown: number): string => {
    const body = texts.slice(0, shown).join('\n');
    return shown < wanted ? `${head}${body}\n${rows.marker(shown)}` : `${head}${body}`;
  };
  // The marker's size varies with its numbers by a token or so; the fewest and most rows shown bound it.
  const markerTokens = wanted > 1 ? Math.max(tokenizer.count(rows.marker(1)), tokenizer.count(rows.marker(wanted - 1))) : 0;

  // Estimate: whole rows while their counts stay within the room.
  let shown = 0;
  for (let tokens = headTokens, chars = -1; shown < wanted; shown += 1) {
    const rowChars = 1 + read(shown).length;
    if (chars + rowChars > limits.maxChars) break;
    const more = shown + 1 < wanted;
    let room = limits.maxTokens - tokens - (more ? markerTokens : 0);
    let added = rowTokens(shown, room);
    // That marker bound is a token or two generous: at the edge, the exact marker decides.
    if (added > room && more) {
      room = limits.maxTokens - tokens - tokenizer.count(rows.marker(shown + 1));
      added = rowTokens(shown, room);
    }
    if (added > room) break;
    tokens += added;
    chars += rowChars;
  }

  // Exact: the returned answer is what must fit, so it is counted whole; rows are dropped while it
  // is over, and added while the estimate left room (never up to a count already found over).
  let tooMany = wanted + 1;
  for (let round = 0; shown > 0;) {
    const answer = answerFor(shown);
    const tokens = tokenizer.count(answer);
    if (tokens > limits.maxTokens) {
      tooMany = shown;
      for (let excess = tokens - limits.maxTokens; shown > 0 && excess > 0;) {
        shown -= 1;
        excess -= rowTokens(shown, limits.maxTokens);
      }
      continue;
    }
    if (round >= GROW_ROUNDS) return answer;
    round += 1;
    let room = limits.maxTokens - tokens;
    let chars = answer.length - head.length - (shown < wanted ? rows.marker(shown).length + 1 : 0);
    let grown = shown;
    while (grown + 1 < tooMany && grown < wanted) {
      const rowChars = 1 + read(grown).length;
      // The last row ends the marker too.
      const fits = room + (grown + 1 === wanted ? markerTokens : 0);
      if (chars + rowChars > limits.maxChars) break;
      const added = rowTokens(grown, fits);
      if (added > fits) break;
      room -= added;
      chars += rowChars;
      grown += 1;
    }
    if (grown === shown) return answer;
    shown = grown;
  }
  return null;
}

/**
 * The start of one line too long for an answer, after `part.head`, and the marker naming the call
 * for the rest of it. windowAnswer fits the cut, with less room by the head and by how much longer
 * our marker is than its own; the answer is then counted whole. Null when the cut would hold the
 * whole line (bounds too small for any marker).
 */
export function lineInPart(text: string, line: Line, part: LinePart, limits: WindowLimits, tokenizer: PrefixTokenizer): string | null {
  const lineText = text.slice(line.from, line.end);
  // Below the line's length, so windowAnswer always cuts and marks the cut.
  const maxChars = Math.max(0, Math.min(lineText.length - 1, limits.maxChars - part.headChars));
  const nextCall = (end: number) => part.chars(line.from + end);
  const theirs = tokenizer.count(`\n${continueMarker(nextCall(maxChars), 0, maxChars, lineText.length)}`);
  const ours = tokenizer.count(`\n${part.marker(line.from + maxChars)}`);
  let room = limits.maxTokens - tokenizer.count(part.head) - Math.max(0, ours - theirs);
  for (let previous = -1; ;) {
    const window = windowAnswer(lineText, 0, { maxTokens: room, maxChars }, nextCall, tokenizer);
    // A part of one line holds no `\n`: the first one starts windowAnswer's marker.
    const cut = window.indexOf('\n');
    const end = line.from + (cut < 0 ? window.length : cut);
    if (end >= line.end) return null;
    const answer = `${part.head}${text.slice(line.from, end)}\n${part.marker(end)}`;
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
