import { runWithTimeout } from '../../common/workers/timed-run';
import { foldCodePoint } from './case-fold';

/** Where a substring matches a text: how many times (at most the cap) and the first offsets. */
export interface SubstringMatches {
  /** Matches counted, at most `maxCounted`. */
  count: number;
  /** There are more than `maxCounted` (the search stopped at the next one). */
  capped: boolean;
  /** The first `keepOffsets` matches' offsets (UTF-16 indexes), ascending. */
  offsets: number[];
}

/** Most matches counted: past it an answer says "10000+", and neither time nor memory grows further. */
export const SUBSTRING_MAX_COUNTED_MATCHES = 10_000;

/**
 * Payloads of this many characters or more are searched in a worker thread; shorter ones where
 * they are, a few hundred microseconds at most (about 10 ns per character), less than a thread's
 * round trip.
 */
export const SUBSTRING_OFF_THREAD_FROM_CHARS = 32_768;

/** A search's budget in its thread: far above the tens of milliseconds 2,000,000 characters take. */
export const SUBSTRING_TIMEOUT_MS = 1_000;

export interface MatchLimits {
  maxCounted: number;
  keepOffsets: number;
}

/** One substring search as a worker thread receives it: plain data. */
export interface SubstringSearchTask extends MatchLimits {
  text: string;
  /** Non-empty, at most SUBSTRING_MAX_CHARS long (checked before it is sent). */
  substring: string;
  /** Most milliseconds the search may run. */
  timeoutMs: number;
}

export type SubstringSearchAnswer = SubstringMatches | { timedOut: true };

/** A search in a worker thread, stopped at its time budget (it is linear, so the budget is a backstop). */
export function searchSubstring(task: SubstringSearchTask): SubstringSearchAnswer {
  const run = runWithTimeout(() => findMatches(task.text, task.substring, task), task.timeoutMs);
  return 'timedOut' in run ? run : run.value;
}

/**
 * The non-overlapping, case-insensitive matches of `substring` in `text`, leftmost first, as
 * `new RegExp(literal, 'giu')` finds them: code point by code point, each folded by
 * {@link foldCodePoint}, so a match never starts or ends inside a surrogate pair. Knuth–Morris–Pratt
 * over the folded code points: at most two steps per code point of the text whatever the substring
 * (a regular expression engine backtracks on `a…ab…a` over a text of a's), with no copy of the text.
 */
export function findMatches(text: string, substring: string, limits: MatchLimits): SubstringMatches {
  const pattern = foldedCodePoints(substring);
  const fallback = failureTable(pattern);
  const offsets: number[] = [];
  let count = 0;
  let matched = 0;
  for (let at = 0; at < text.length;) {
    const code = text.codePointAt(at) as number;
    at += code > 0xffff ? 2 : 1;
    const folded = foldCodePoint(code);
    while (matched > 0 && pattern[matched] !== folded) matched = fallback[matched - 1];
    if (pattern[matched] === folded) matched += 1;
    if (matched < pattern.length) continue;
    if (count === limits.maxCounted) return { count, capped: true, offsets };
    // A match has the substring's length in UTF-16 units: folding keeps each code point in its plane.
    if (offsets.length < limits.keepOffsets) offsets.push(at - substring.length);
    count += 1;
    matched = 0;
  }
  return { count, capped: false, offsets };
}

function foldedCodePoints(text: string): Int32Array {
  return Int32Array.from(text, (character) => foldCodePoint(character.codePointAt(0) as number));
}

/** For each prefix of the pattern, the length of its longest proper prefix that is also its suffix. */
function failureTable(pattern: Int32Array): Int32Array {
  const fallback = new Int32Array(pattern.length);
  for (let index = 1, length = 0; index < pattern.length;) {
    if (pattern[index] === pattern[length]) fallback[index++] = ++length;
    else if (length > 0) length = fallback[length - 1];
    else fallback[index++] = 0;
  }
  return fallback;
}
