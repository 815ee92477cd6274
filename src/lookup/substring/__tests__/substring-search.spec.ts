import fc from 'fast-check';
import { findMatches, SUBSTRING_MAX_COUNTED_MATCHES, searchSubstring } from '../substring-search';

const ALL = { maxCounted: Number.MAX_SAFE_INTEGER, keepOffsets: Number.MAX_SAFE_INTEGER };

/** What the lookup did before: a literal RegExp with flags giu, exec after exec. */
function regexpOffsets(text: string, query: string): number[] {
  const pattern = new RegExp(query.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'giu');
  const offsets: number[] = [];
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) offsets.push(match.index);
  return offsets;
}

/**
 * Characters where case-insensitive matching is easy to get wrong: the long s, the Kelvin sign,
 * ß and capital ẞ, the sigmas, the Turkish i's, Greek letters with a simple folding added in
 * Unicode 14, Deseret (astral, cased), an emoji, lone surrogates, and plain letters around them.
 */
const TRICKY = [
  'a',
  'A',
  'b',
  's',
  'S',
  'ſ',
  'k',
  'K',
  '\u212a',
  'ß',
  'ẞ',
  'σ',
  'Σ',
  'ς',
  'i',
  'I',
  'İ',
  'ı',
  '\u0390',
  '\u1fd3',
  'ﬅ',
  'ﬆ',
  '𐐀',
  '𐐨',
  '😀',
  '\ud801',
  '\udc00',
  '\ud83d',
  ' ',
];
const trickyText = (maxLength: number) => fc.array(fc.constantFrom(...TRICKY), { maxLength }).map((parts) => parts.join(''));

describe('findMatches: linear-time case-insensitive substring search (R-LG-2, R-TN-10)', () => {
  it('R-LG-2 finds the offsets RegExp giu finds, for Unicode folds, astral characters and lone surrogates', () => {
    fc.assert(
      fc.property(trickyText(40), trickyText(4), fc.nat(), fc.nat(), (text, extra, from, length) => {
        // Half the queries are cut from the text, so most of them match somewhere.
        const cut = text.slice(from % (text.length + 1), (from % (text.length + 1)) + 1 + (length % 4));
        for (const query of [cut, extra].filter((q) => q.length > 0)) {
          expect(findMatches(text, query, ALL).offsets).toEqual(regexpOffsets(text, query));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('R-LG-2 finds the offsets RegExp giu finds in any Unicode text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
        (text, query) => {
          // The query planted in the text, in capitals where that keeps its length.
          const upper = query.toUpperCase();
          const planted = `${text}${upper.length === query.length ? upper : query}${text}`;
          expect(findMatches(planted, query, ALL).offsets).toEqual(regexpOffsets(planted, query));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('R-LG-2 matches do not overlap and a partial match falls back without losing the next one', () => {
    expect(findMatches('aaaaa', 'aa', ALL)).toEqual({ count: 2, capped: false, offsets: [0, 2] });
    expect(findMatches('aabaabaaab', 'AAB', ALL)).toEqual({ count: 3, capped: false, offsets: [0, 3, 7] });
    expect(findMatches('Straße STRASSE', 'ss', ALL).offsets).toEqual([11]);
    // A match never starts or ends inside a surrogate pair.
    expect(findMatches('😀\udc00', '\udc00', ALL).offsets).toEqual([2]);
  });

  it('R-TN-10 counts at most the cap, keeps only the offsets asked for, and says when there are more', () => {
    const limits = { maxCounted: SUBSTRING_MAX_COUNTED_MATCHES, keepOffsets: 6 };
    expect(findMatches('a'.repeat(SUBSTRING_MAX_COUNTED_MATCHES), 'A', limits)).toEqual({
      count: SUBSTRING_MAX_COUNTED_MATCHES,
      capped: false,
      offsets: [0, 1, 2, 3, 4, 5],
    });
    expect(findMatches('a'.repeat(SUBSTRING_MAX_COUNTED_MATCHES + 1), 'A', limits)).toEqual({
      count: SUBSTRING_MAX_COUNTED_MATCHES,
      capped: true,
      offsets: [0, 1, 2, 3, 4, 5],
    });
  });

  it("R-TN-10 answers the issue's query over a long run of a's (a backtracking engine's worst case) with no match", () => {
    const substring = `${'a'.repeat(50)}b${'a'.repeat(949)}`;
    expect(searchSubstring({ text: 'a'.repeat(200_000), substring, timeoutMs: 10_000, maxCounted: 10, keepOffsets: 6 })).toEqual({
      count: 0,
      capped: false,
      offsets: [],
    });
  });

  it('R-TN-10 a search past its budget is stopped and says so, whatever it was doing', () => {
    // Far more text than 1 ms of searching covers (about 10 ns a character).
    expect(searchSubstring({ text: 'ab'.repeat(5_000_000), substring: 'abc', timeoutMs: 1, maxCounted: 10, keepOffsets: 6 })).toEqual({
      timedOut: true,
    });
  });
});
