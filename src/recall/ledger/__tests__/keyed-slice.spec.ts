import { capReturned, cutAnswer, notFoundText, parseJsonPath, rangeArgumentProblem, sliceByQuery, sliceByRange } from '../keyed-slice';

const MEM = 'mem_ABCDEFGHIJKLMNOP';

describe('sliceByQuery', () => {
  const text = `${'a'.repeat(300)}Needle one${'b'.repeat(500)}needle two${'c'.repeat(20)}`;

  it('R-LG-2 returns each case-insensitive match with ±window context and its offset', () => {
    const result = sliceByQuery(text, 'NEEDLE', MEM, { window: 10 });
    expect(result).toBe(
      [
        `[match 1 of 2 at offset 300]\n…${'a'.repeat(10)}Needle one${'b'.repeat(6)}…`,
        `[match 2 of 2 at offset 810]\n…${'b'.repeat(10)}needle two${'c'.repeat(6)}…`,
      ].join('\n\n'),
    );
  });

  it('R-LG-2 uses a ±200 char window by default and marks no cut at the ends of the text', () => {
    const result = sliceByQuery('short text with a needle in it', 'needle', MEM);
    expect(result).toBe('[match 1 of 1 at offset 18]\nshort text with a needle in it');
    const long = sliceByQuery(text, 'needle two', MEM);
    expect(long).toBe(`[match 1 of 1 at offset 810]\n…${text.slice(610)}`);
  });

  it('R-LG-2 bounds the matches and says how to read on', () => {
    const many = Array.from({ length: 9 }, (_, i) => `row ${i} price=${i}`).join('\n');
    const result = sliceByQuery(many, 'price=', MEM, { window: 0, maxMatches: 2 });
    expect(result).toBe(
      [
        '[match 1 of 9 at offset 6]\n…price=…',
        '[match 2 of 9 at offset 20]\n…price=…',
        '[7 more matches not shown; the next is at offset 34: read on with offset=34, max_chars=4000, or narrow the query]',
      ].join('\n\n'),
    );
  });

  it('R-LG-2 treats the query literally, not as a pattern', () => {
    expect(sliceByQuery('cost (USD): $4.99', '(usd): $4.', MEM, { window: 0 })).toBe('[match 1 of 1 at offset 5]\n…(USD): $4.…');
  });

  it('R-LG-2 answers a missing or empty query with bracketed text', () => {
    expect(sliceByQuery(text, 'haystack', MEM)).toBe(`[tool_memory no match for "haystack" in ${MEM}]`);
    expect(sliceByQuery(text, '', MEM)).toBe('[tool_memory bad query: query must not be empty]');
  });
});

describe('sliceByRange', () => {
  const text = '0123456789'.repeat(200);

  it('R-LG-2 returns exactly the characters of the range, then how to continue', () => {
    expect(sliceByRange(text, 1500, 5)).toBe(`01234\n[… 495 more chars; continue with offset=1505]`);
    expect(sliceByRange(text, 1995, 100)).toBe('56789');
    expect(sliceByRange('ab😀cd', 2, 1)).toBe('\ud83d\n[… 3 more chars; continue with offset=3]');
  });

  it('R-LG-2 answers bad ranges with bracketed text, never an exception', () => {
    expect(sliceByRange(text, 2000, 10)).toBe('[tool_memory bad range: offset 2000 is past the end (length 2000)]');
    expect(sliceByRange(text, -1, 10)).toBe('[tool_memory bad range: offset must be a non-negative integer, got -1]');
    expect(sliceByRange(text, 1.5, 10)).toBe('[tool_memory bad range: offset must be a non-negative integer, got 1.5]');
    expect(sliceByRange(text, 0, 0)).toBe('[tool_memory bad range: max_chars must be a positive integer, got 0]');
    expect(sliceByRange(text, 0, Number.NaN)).toBe('[tool_memory bad range: max_chars must be a positive integer, got NaN]');
  });
});

describe('parseJsonPath', () => {
  it('R-LG-2 splits a dotted path into the text path elements of #>', () => {
    expect(parseJsonPath('items.3.price')).toEqual(['items', '3', 'price']);
    expect(parseJsonPath('a.b')).toEqual(['a', 'b']);
    expect(parseJsonPath('a.0')).toEqual(['a', '0']);
    expect(parseJsonPath('total')).toEqual(['total']);
  });

  it('R-LG-2 rejects empty and malformed paths with null', () => {
    for (const path of ['', '.', 'a.', '.a', 'a..b']) expect(parseJsonPath(path)).toBeNull();
    expect(parseJsonPath(Array.from({ length: 65 }, () => 'a').join('.'))).toBeNull();
    expect(parseJsonPath(Array.from({ length: 64 }, () => 'a').join('.'))).toHaveLength(64);
    expect(parseJsonPath(`a.${'k'.repeat(257)}`)).toBeNull();
    expect(parseJsonPath(`a.${'k'.repeat(256)}`)).toEqual(['a', 'k'.repeat(256)]);
  });
});

describe('bracketed answers', () => {
  it('R-LG-2 says exactly which mem id was not found', () => {
    expect(notFoundText('mem_ZZZZZZZZZZZZZZZZ')).toBe('[tool_memory not found: mem_ZZZZZZZZZZZZZZZZ]');
  });

  it('R-LG-2 caps a long result and says where the rest starts', () => {
    const text = 'x'.repeat(100);
    expect(capReturned(text, 100, MEM)).toBe(text);
    expect(capReturned(text, 40, MEM)).toBe(
      `${'x'.repeat(40)}\n[… 60 more chars cut at the 40-char limit; fetch the rest with ` +
        `recall_tool_result(mem_id='${MEM}', offset=40, max_chars=40)]`,
    );
    expect(capReturned(text, 40, MEM, 1000)).toContain('offset=1040, max_chars=40');
  });
});

describe('rangeArgumentProblem', () => {
  it('R-LG-2 refuses a range that can never be valid, before the payload is read', () => {
    expect(rangeArgumentProblem(0, 1)).toBeNull();
    expect(rangeArgumentProblem(-1, 10)).toBe(sliceByRange('anything', -1, 10));
    expect(rangeArgumentProblem(0, 0)).toBe(sliceByRange('anything', 0, 0));
  });
});

describe('cutAnswer', () => {
  it('R-LG-2 cuts an answer at the ceiling and says what to narrow, never splitting a surrogate pair', () => {
    expect(cutAnswer('x'.repeat(10), 10, 'narrow the query')).toBe('x'.repeat(10));
    expect(cutAnswer('x'.repeat(11), 10, 'narrow the query')).toBe(`${'x'.repeat(10)}\n[… cut at the 10-char limit; narrow the query]`);
    expect(cutAnswer('ab😀cd', 3, 'hint')).toBe('ab\n[… cut at the 3-char limit; hint]');
  });
});
