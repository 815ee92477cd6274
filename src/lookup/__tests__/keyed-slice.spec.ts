import { notFoundText, offsetProblem, rangeArgumentProblem, sliceBySubstring } from '../keyed-slice';

const MEM = 'mem_ABCDEFGHIJKLMNOP';

describe('sliceBySubstring', () => {
  const text = `${'a'.repeat(300)}Needle one${'b'.repeat(500)}needle two${'c'.repeat(20)}`;

  it('R-LG-2 returns each case-insensitive match with ±window context and its offset', () => {
    const result = sliceBySubstring(text, 'NEEDLE', MEM, { window: 10 });
    expect(result).toBe(
      [
        `[match 1 of 2 at offset 300]\n…${'a'.repeat(10)}Needle one${'b'.repeat(6)}…`,
        `[match 2 of 2 at offset 810]\n…${'b'.repeat(10)}needle two${'c'.repeat(6)}…`,
      ].join('\n\n'),
    );
  });

  it('R-LG-2 uses a ±200 char window by default and marks no cut at the ends of the text', () => {
    const result = sliceBySubstring('short text with a needle in it', 'needle', MEM);
    expect(result).toBe('[match 1 of 1 at offset 18]\nshort text with a needle in it');
    const long = sliceBySubstring(text, 'needle two', MEM);
    expect(long).toBe(`[match 1 of 1 at offset 810]\n…${text.slice(610)}`);
  });

  it('R-LG-2 bounds the matches and says how to read on', () => {
    const many = Array.from({ length: 9 }, (_, i) => `row ${i} price=${i}`).join('\n');
    const result = sliceBySubstring(many, 'price=', MEM, { window: 0, maxMatches: 2 });
    expect(result).toBe(
      [
        '[match 1 of 9 at offset 6]\n…price=…',
        '[match 2 of 9 at offset 20]\n…price=…',
        '[7 more matches not shown; the next is at offset 34: read the payload on from there without query, with offset=34, max_chars=4000, or narrow the query]',
      ].join('\n\n'),
    );
  });

  it('R-LG-2 R-TN-10 counts matches up to 10000: past it the count reads 10000+, and the next offset still says where to read on', () => {
    const result = sliceBySubstring('ab'.repeat(10_001), 'B', MEM, { window: 1, maxMatches: 2 });
    expect(result).toBe(
      [
        '[match 1 of 10000+ at offset 1]\naba…',
        '[match 2 of 10000+ at offset 3]\n…aba…',
        '[9998+ more matches not shown; the next is at offset 5: read the payload on from there without query, with offset=4, max_chars=4000, or narrow the query]',
      ].join('\n\n'),
    );
    expect(sliceBySubstring('ab'.repeat(10_000), 'B', MEM, { window: 0, maxMatches: 1 })).toMatch(/^\[match 1 of 10000 at offset 1\]/);
  });

  it('R-LG-2 treats the query literally, not as a pattern', () => {
    expect(sliceBySubstring('cost (USD): $4.99', '(usd): $4.', MEM, { window: 0 })).toBe('[match 1 of 1 at offset 5]\n…(USD): $4.…');
  });

  it('R-LG-2 answers a missing or empty query with bracketed text', () => {
    expect(sliceBySubstring(text, 'haystack', MEM)).toBe(`[tool_memory no match for "haystack" in ${MEM}]`);
    expect(sliceBySubstring(text, '', MEM)).toBe('[tool_memory bad query: query must not be empty]');
  });
});

describe('offsetProblem', () => {
  it('R-LG-2 an offset at or past the end of a non-empty text is bracketed text; offset 0 of an empty one is not', () => {
    expect(offsetProblem(2000, 2000)).toBe('[tool_memory bad range: offset 2000 is past the end (length 2000)]');
    expect(offsetProblem(1999, 2000)).toBeNull();
    expect(offsetProblem(0, 0)).toBeNull();
  });
});

describe('bracketed answers', () => {
  it('R-LG-2 says exactly which mem id was not found', () => {
    expect(notFoundText('mem_ZZZZZZZZZZZZZZZZ')).toBe('[tool_memory not found: mem_ZZZZZZZZZZZZZZZZ]');
  });
});

describe('rangeArgumentProblem', () => {
  it('R-LG-2 refuses a range that can never be valid, before the payload is read', () => {
    expect(rangeArgumentProblem(0, 1)).toBeNull();
    expect(rangeArgumentProblem(-1, 10)).toBe('[tool_memory bad range: offset must be a non-negative integer, got -1]');
    expect(rangeArgumentProblem(1.5, 10)).toBe('[tool_memory bad range: offset must be a non-negative integer, got 1.5]');
    expect(rangeArgumentProblem(0, 0)).toBe('[tool_memory bad range: max_chars must be a positive integer, got 0]');
    expect(rangeArgumentProblem(0, Number.NaN)).toBe('[tool_memory bad range: max_chars must be a positive integer, got NaN]');
  });
});
