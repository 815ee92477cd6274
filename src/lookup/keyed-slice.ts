import { elide, toSingleLine } from '../common/text/text-bounds';
import { findMatches, SUBSTRING_MAX_COUNTED_MATCHES, type SubstringMatches } from './substring/substring-search';

/** Pure keyed retrieval over a payload "as the model saw it". Failures are bracketed text, never thrown. */

const SUBSTRING_WINDOW_CHARS = 200;
const SUBSTRING_MAX_MATCHES = 5;
const SUBSTRING_MAX_CHARS = 1000;
const QUOTED_SUBSTRING_MAX_CHARS = 80;
/** Suggested page size in "read on" markers. */
const CONTINUE_PAGE_CHARS = 4000;

export interface SubstringSliceOptions {
  window?: number;
  maxMatches?: number;
}

export function notFoundText(memId: string): string {
  return `[tool_memory not found: ${memId}]`;
}

/** The bracketed answer for a substring (the `query` argument) that can never match (empty, too long), else null. */
export function substringProblem(substring: string): string | null {
  if (substring.length === 0) return '[tool_memory bad query: query must not be empty]';
  if (substring.length > SUBSTRING_MAX_CHARS) return `[tool_memory bad query: longer than ${SUBSTRING_MAX_CHARS} chars]`;
  return null;
}

/** The match offsets an answer shows, and the next one its "more matches" line names. */
export const SUBSTRING_KEPT_OFFSETS = SUBSTRING_MAX_MATCHES + 1;

/**
 * Each case-insensitive match of `substring` with ±window characters of context and its offset (JS
 * string index). Matches do not overlap; each is shown on its own, even when contexts overlap.
 * Searched here: for a large text, search in a worker thread and answer with {@link substringMatchesAnswer}.
 */
export function sliceBySubstring(text: string, substring: string, memId: string, options: SubstringSliceOptions = {}): string {
  const problem = substringProblem(substring);
  if (problem !== null) return problem;
  const keepOffsets = maxMatchesOf(options) + 1;
  return substringMatchesAnswer(
    text,
    substring,
    memId,
    findMatches(text, substring, { maxCounted: SUBSTRING_MAX_COUNTED_MATCHES, keepOffsets }),
    options,
  );
}

/** The answer for `matches` of `substring` in `text`; a capped count reads "10000+". */
export function substringMatchesAnswer(
  text: string,
  substring: string,
  memId: string,
  matches: SubstringMatches,
  options: SubstringSliceOptions = {},
): string {
  const { count, capped, offsets } = matches;
  if (count === 0) {
    const quoted = JSON.stringify(elide(toSingleLine(substring), QUOTED_SUBSTRING_MAX_CHARS));
    return `[tool_memory no match for ${quoted} in ${memId}]`;
  }
  const window = nonNegativeInteger(options.window, SUBSTRING_WINDOW_CHARS);
  const more = capped ? '+' : '';
  const shown = offsets.slice(0, maxMatchesOf(options)).map((offset, index) => {
    const start = codePointStart(text, Math.max(0, offset - window));
    const end = codePointEnd(text, Math.min(text.length, offset + substring.length + window));
    const context = `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
    return `[match ${index + 1} of ${count}${more} at offset ${offset}]\n${context}`;
  });
  const hidden = count - shown.length;
  if (hidden > 0) {
    const next = offsets[shown.length];
    const from = Math.max(0, next - window);
    shown.push(
      `[${hidden}${more} more match${hidden === 1 ? '' : 'es'} not shown; the next is at offset ${next}: ` +
        `read the payload on from there without query, with offset=${from}, max_chars=${CONTINUE_PAGE_CHARS}, or narrow the query]`,
    );
  }
  return shown.join('\n\n');
}

/** The bracketed answer for an offset past the end of what there is to read, else null. */
export function offsetProblem(offset: number, length: number): string | null {
  return offset > 0 && offset >= length ? `[tool_memory bad range: offset ${offset} is past the end (length ${length})]` : null;
}

/** The bracketed answer for an offset/max_chars pair that can never be valid, else null. */
export function rangeArgumentProblem(offset: number, maxChars: number): string | null {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    return `[tool_memory bad range: offset must be a non-negative integer, got ${String(offset)}]`;
  }
  if (!Number.isSafeInteger(maxChars) || maxChars <= 0) {
    return `[tool_memory bad range: max_chars must be a positive integer, got ${String(maxChars)}]`;
  }
  return null;
}

function nonNegativeInteger(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

function maxMatchesOf(options: SubstringSliceOptions): number {
  return Math.max(1, nonNegativeInteger(options.maxMatches, SUBSTRING_MAX_MATCHES));
}

/** Moves a cut start off the second half of a surrogate pair. */
function codePointStart(text: string, index: number): number {
  return splitsSurrogatePair(text, index) ? index - 1 : index;
}

/** Moves a cut end past the second half of a surrogate pair. */
function codePointEnd(text: string, index: number): number {
  return splitsSurrogatePair(text, index) ? index + 1 : index;
}

function splitsSurrogatePair(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}
