import { memNotFoundText, pathNotFoundText, planRecall, type RecallArguments } from '../recall-request';

const MEM = 'mem_abcdefghijklmnop';
const NONE: RecallArguments = { memId: MEM, format: null, query: null, offset: null, maxChars: null, jsonPath: null };
const CEILING = 100_000;

const plan = (args: Partial<RecallArguments>) => planRecall({ ...NONE, ...args }, CEILING);

describe('planRecall', () => {
  it('R-LG-2 without a key: SUMMARY (also the default) gives the stub, FULL the payload', () => {
    expect(plan({})).toEqual({ mode: 'summary' });
    expect(plan({ format: 'SUMMARY' })).toEqual({ mode: 'summary' });
    expect(plan({ format: 'FULL' })).toEqual({ mode: 'full' });
  });

  it('R-LG-2 picks the key mode; format does not matter then', () => {
    expect(plan({ query: 'Price', format: 'FULL' })).toEqual({ mode: 'query', query: 'Price' });
    expect(plan({ offset: 1000, maxChars: 500 })).toEqual({ mode: 'range', offset: 1000, maxChars: 500 });
    expect(plan({ jsonPath: 'items.3.price' })).toEqual({ mode: 'path', path: ['items', '3', 'price'], pathText: 'items.3.price' });
  });

  it('R-LG-2 a range with one end left out starts at 0 or runs to the ceiling; the ceiling bounds maxChars', () => {
    expect(plan({ offset: 7 })).toEqual({ mode: 'range', offset: 7, maxChars: CEILING });
    expect(plan({ maxChars: 20 })).toEqual({ mode: 'range', offset: 0, maxChars: 20 });
    expect(plan({ offset: 0, maxChars: 5 * CEILING })).toEqual({ mode: 'range', offset: 0, maxChars: CEILING });
  });

  it('R-LG-2 answers more than one key, a bad range or a bad path with bracketed text, without a query', () => {
    const several = '[tool_memory bad arguments: give one of query, offset/max_chars or json_path, not several]';
    expect(plan({ query: 'a', jsonPath: 'a' })).toEqual({ mode: 'answer', text: several });
    expect(plan({ query: 'a', maxChars: 3 })).toEqual({ mode: 'answer', text: several });
    expect(plan({ offset: 1, jsonPath: 'a' })).toEqual({ mode: 'answer', text: several });
    expect(plan({ offset: -1 })).toEqual({ mode: 'answer', text: '[tool_memory bad range: offset must be a non-negative integer, got -1]' });
    expect(plan({ maxChars: 0 })).toEqual({ mode: 'answer', text: '[tool_memory bad range: max_chars must be a positive integer, got 0]' });
    expect(plan({ jsonPath: 'a..b' })).toEqual({ mode: 'answer', text: '[tool_memory bad json_path: "a..b"; use a dotted path such as items.3.price]' });
  });

  it('R-LG-2 a malformed mem id reads as an unknown one, in every mode', () => {
    for (const args of [{}, { format: 'FULL' as const }, { query: 'x' }, { offset: 1, maxChars: 2 }, { jsonPath: 'a' }]) {
      expect(planRecall({ ...NONE, ...args, memId: 'mem_X' }, CEILING)).toEqual({ mode: 'answer', text: '[tool_memory not found: mem_X]' });
    }
  });
});

describe('not-found texts', () => {
  it('R-LG-2 echoes a mem id on one bounded line', () => {
    expect(memNotFoundText(MEM)).toBe(`[tool_memory not found: ${MEM}]`);
    expect(memNotFoundText('a\nb\u0001c')).toBe('[tool_memory not found: a b c]');
    const long = memNotFoundText('m'.repeat(1000));
    expect(long).toBe(`[tool_memory not found: ${'m'.repeat(63)}…]`);
  });

  it('R-LG-2 names a missing json_path and the mem id', () => {
    expect(pathNotFoundText(MEM, 'items.999.price')).toBe(`[tool_memory not found: json_path "items.999.price" in ${MEM}]`);
  });
});
