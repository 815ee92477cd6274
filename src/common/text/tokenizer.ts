import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { LRUCache } from 'lru-cache';

/** Counts tokens the way the model will; every token budget of the service is measured with it. */
export interface Tokenizer {
  count(text: string): number;
  /** A byte-level BPE: a text never counts more tokens than it has UTF-8 bytes. */
  readonly atMostOneTokenPerByte?: boolean;
}

/**
 * Whether `text` surely counts at most `maxTokens` tokens, known without counting it: with a
 * byte-level tokenizer, when it has at most that many UTF-8 bytes. (UTF-8 never has fewer bytes
 * than UTF-16 units, so a longer text is not even measured.)
 */
export function fitsUncounted(tokenizer: Tokenizer, text: string, maxTokens: number): boolean {
  return tokenizer.atMostOneTokenPerByte === true && text.length <= maxTokens && Buffer.byteLength(text, 'utf8') <= maxTokens;
}

/** A tokenizer that also names points where a text may be cut and counted in parts with the same total. */
export interface PrefixTokenizer extends Tokenizer {
  /** The first such point at or after `index`, or `text.length`. */
  boundaryFrom(text: string, index: number): number;
}

// Tool outputs are untrusted text: "<|endoftext|>" must count as plain text, not throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/*
 * BPE merges inside one pre-token take time quadratic in its length: a 250,000-letter word
 * costs ~30 s. Such runs (letters, punctuation or white space, never found in ordinary text)
 * are counted in pieces of this many code points; everything around them is counted whole,
 * so ordinary text gets exactly the tokenizer's count.
 */
const RUN_PIECE = 256;
// Each branch starts only where its run starts (the lookbehind): without it the engine would
// rescan every word from each of its letters, quadratic in the word's length.
const LONG_RUN = new RegExp(
  `(?<![\\p{L}\\p{M}])[\\p{L}\\p{M}]{${RUN_PIECE},}|(?<![^\\s\\p{L}\\p{M}\\p{N}])[^\\s\\p{L}\\p{M}\\p{N}]{${RUN_PIECE},}|(?<!\\s)\\s{${RUN_PIECE},}`,
  'gu',
);

function countPlain(text: string): number {
  return text.length === 0 ? 0 : countO200k(text, PLAIN_TEXT);
}

/*
 * The counts of long runs' pieces, by piece. A window search counts the same text again from its
 * start at each probe (recall answers, R-LG-2), and a run repeats its pieces (2 MB of spaces is one
 * piece 7,813 times): each piece costs its quadratic merge once. A key is at most RUN_PIECE code
 * points, so the cache holds at most 4 MiB; it is shared by every team, as the counts are the
 * tokenizer's and the same for all.
 */
const runPieceCounts = new LRUCache<string, number>({ max: 4096 });

function countRunPiece(piece: string): number {
  let count = runPieceCounts.get(piece);
  if (count === undefined) {
    count = countPlain(piece);
    runPieceCounts.set(piece, count);
  }
  return count;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Tokens of any text as plain text, the single entry point of the service (block budget, stub
 * bound, compaction figures). Special-token strings count as the text they are; pathological
 * runs cost linear time.
 */
export function countTokens(text: string): number {
  if (text.length < RUN_PIECE) return countPlain(text);
  let total = 0;
  let from = 0;
  for (const run of longRuns(text)) {
    total += countPlain(text.slice(from, run.index));
    if (SURROGATE.test(run.text)) {
      const points = Array.from(run.text);
      for (let start = 0; start < points.length; start += RUN_PIECE)
        total += countRunPiece(points.slice(start, start + RUN_PIECE).join(''));
    } else {
      // Code points are code units here: pieces are plain slices.
      for (let start = 0; start < run.text.length; start += RUN_PIECE) total += countRunPiece(run.text.slice(start, start + RUN_PIECE));
    }
    from = run.index + run.text.length;
  }
  return total + countPlain(text.slice(from));
}

function isAsciiSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/**
 * The matches of LONG_RUN in `text`, in order, without running that Unicode-aware regex (about
 * 0.1 µs a character) over all of it. A letter or punctuation run has no white space, a white-space
 * run only white space; so each lies in a stretch of at least RUN_PIECE code units without ASCII
 * white space, or of only white space and non-ASCII characters. A linear pass finds those
 * stretches (ordinary text has none) and the regex searches just them, with two characters in
 * front for its lookbehind.
 */
export function longRuns(text: string): { index: number; text: string }[] {
  const stretches: [number, number][] = [];
  let solidFrom = 0;
  let spaceFrom = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : -1;
    const ascii = code >= 0 && code < 0x80;
    if (code < 0 || (ascii && isAsciiSpace(code))) {
      if (i - solidFrom >= RUN_PIECE) stretches.push([solidFrom, i]);
      solidFrom = i + 1;
    }
    if (code < 0 || (ascii && !isAsciiSpace(code))) {
      if (i - spaceFrom >= RUN_PIECE) stretches.push([spaceFrom, i]);
      spaceFrom = i + 1;
    }
  }
  if (stretches.length === 0) return [];
  stretches.sort((a, b) => a[0] - b[0]);
  const runs: { index: number; text: string }[] = [];
  let [from, to] = stretches[0];
  const search = (start: number, end: number) => {
    const context = Math.max(0, start - 2);
    for (const match of text.slice(context, end).matchAll(LONG_RUN)) {
      if (match.index + context >= start) runs.push({ index: match.index + context, text: match[0] });
    }
  };
  for (const [start, end] of stretches.slice(1)) {
    if (start <= to) {
      to = Math.max(to, end);
      continue;
    }
    search(from, to);
    [from, to] = [start, end];
  }
  search(from, to);
  return runs;
}

/**
 * o200k_base (the GPT-4o family's BPE) from gpt-tokenizer: maintained, pure JS, ships its
 * vocabulary inside the package, so nothing is downloaded at run time.
 */
export const o200kTokenizer: PrefixTokenizer = { count: countTokens, boundaryFrom: tokenBoundaryFrom, atMostOneTokenPerByte: true };

const APOSTROPHE = 0x27;

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * The first index at or after `index` (and above 0) between an ASCII letter and an ASCII character
 * that is neither a letter nor an apostrophe, else `text.length`. o200k's pre-tokenizer always cuts
 * there: only a contraction (`'s`) or more letters extend a word, and no other pre-token runs from a
 * letter into what follows it. countTokens' long runs never cross it either (a letter run ends
 * there, a punctuation or white-space run starts there), so counts of the two sides add up to the
 * whole text's count. Ordinary text and JSON have such a point every few characters. Looked for
 * in the `within` characters from `index` only, when given (none there: `text.length`).
 */
export function tokenBoundaryFrom(text: string, index: number, within = text.length): number {
  const end = Math.min(text.length, index + within);
  for (let i = Math.max(1, index); i < end; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80 && code !== APOSTROPHE && !isAsciiLetter(code) && isAsciiLetter(text.charCodeAt(i - 1))) return i;
  }
  return text.length;
}

const STARTS_WITH_LETTER = /^[A-Za-z]/;

/**
 * countTokens of a text of lines, counted line by line with each line's count kept in `counted`,
 * so texts that differ in one line (the stub fitting loop) cost one line's count. Exact when every
 * line after the first starts with an ASCII letter: no pre-token runs past a line break into a
 * letter. Otherwise the whole text is counted.
 */
export function countTokensByLine(text: string, counted: Map<string, number>): number {
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) if (!STARTS_WITH_LETTER.test(lines[i])) return countTokens(text);
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    const piece = i < lines.length - 1 ? `${lines[i]}\n` : lines[i];
    let tokens = counted.get(piece);
    if (tokens === undefined) {
      tokens = countTokens(piece);
      counted.set(piece, tokens);
    }
    total += tokens;
  }
  return total;
}
