import { memNotFoundText, pathNotFoundText, planLookup, type LookupArguments } from '../lookup-request';

const MEM = 'mem_abcdefghijklmnop';
const NONE: LookupArguments = { memId: MEM, format: null, query: null, offset: null, maxChars: null, jsonPath: null };
const CEILING = 100_000;
const LIMITS = { maxTokens: 8000, maxChars: CEILING };

/** The plan without its next-call function, plus the call it names for offset 42. */
const plan = (args: Partial<LookupArguments>) => {
  const planned = planLookup({ ...NONE, ...args }, LIMITS);
  if (!('nextCall' in planned)) return planned;
  const { nextCall, ...rest } = planned;
  return { ...rest, next: nextCall(42) };
};
const BOUNDS = { maxTokens: 8000, maxChars: CEILING };

describe('planLookup', () => {
  it('R-LG-2 without a key: SUMMARY (also the default) gives the stub, FULL the window from offset 0', () => {
    expect(plan({})).toEqual({ mode: 'summary' });
    expect(plan({ format: 'SUMMARY' })).toEqual({ mode: 'summary' });
    expect(plan({ format: 'FULL' })).toEqual({
      mode: 'range',
      offset: 0,
      bounds: BOUNDS,
      next: `recall_tool_result(mem_id='${MEM}', offset=42)`,
    });
  });

  it('R-LG-2 picks the key mode; offset, max_chars and max_tokens window any of them and reappear in the next call', () => {
    expect(plan({ query: 'Price', format: 'FULL' })).toEqual({
      mode: 'query',
      query: 'Price',
      offset: 0,
      bounds: BOUNDS,
      next: `recall_tool_result(mem_id='${MEM}', query="Price", offset=42)`,
    });
    expect(plan({ offset: 1000, maxChars: 500 })).toEqual({
      mode: 'range',
      offset: 1000,
      bounds: { maxTokens: 8000, maxChars: 500 },
      next: `recall_tool_result(mem_id='${MEM}', offset=42, max_chars=500)`,
    });
    expect(plan({ jsonPath: 'items.3', offset: 7, maxTokens: 500 })).toEqual({
      mode: 'path',
      path: { kind: 'database', selection: { kind: 'keys', keys: ['items', '3'] }, list: false },
      pathText: 'items.3',
      offset: 7,
      bounds: { maxTokens: 500, maxChars: CEILING },
      next: `recall_tool_result(mem_id='${MEM}', json_path="items.3", offset=42, max_tokens=500)`,
    });
  });

  it("R-LG-2 the service bounds cap the caller's: max_tokens and max_chars only lower them", () => {
    expect(plan({ offset: 7 })).toMatchObject({ mode: 'range', offset: 7, bounds: BOUNDS });
    expect(plan({ maxChars: 20 })).toMatchObject({ mode: 'range', offset: 0, bounds: { maxTokens: 8000, maxChars: 20 } });
    expect(plan({ offset: 0, maxChars: 5 * CEILING, maxTokens: 90_000 })).toMatchObject({ mode: 'range', bounds: BOUNDS });
  });

  it('R-LG-2 answers two keys, a bad range, a bad max_tokens or a bad path with bracketed text, without a query', () => {
    expect(plan({ query: 'a', jsonPath: 'a' })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad arguments: give one of query or json_path, not both]',
    });
    expect(plan({ offset: -1 })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad range: offset must be a non-negative integer, got -1]',
    });
    expect(plan({ maxChars: 0 })).toEqual({ mode: 'answer', text: '[tool_memory bad range: max_chars must be a positive integer, got 0]' });
    expect(plan({ maxTokens: 99 })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad max_tokens: must be an integer of at least 100, got 99]',
    });
    expect(plan({ jsonPath: 'a..b' })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad json_path: "a..b": not a dotted path (keys and array indexes joined by dots); write RFC 9535 JSONPath such as $.items[0].price, $.items[*].sku, $..price or $.items[?(@.price < 10)], or a dotted path such as items.0.price]',
    });
  });

  it('R-LG-2 a malformed mem id reads as an unknown one, in every mode', () => {
    for (const args of [{}, { format: 'FULL' as const }, { query: 'x' }, { offset: 1, maxChars: 2 }, { jsonPath: 'a' }]) {
      expect(planLookup({ ...NONE, ...args, memId: 'mem_X' }, LIMITS)).toEqual({ mode: 'answer', text: '[tool_memory not found: mem_X]' });
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

describe('json_path length and nesting', () => {
  const badPath = (jsonPath: string) => {
    const planned = planLookup({ ...NONE, jsonPath }, LIMITS);
    return planned.mode === 'answer' ? planned.text : planned.mode;
  };

  it('R-TN-10 a 100 KB path gets the bad json_path answer before any parsing, in both forms', () => {
    const long = `$${'.a'.repeat(50_000)}`;
    expect(badPath(long)).toMatch(/^\[tool_memory bad json_path: ".{79}…": longer than 4096 characters; write RFC 9535/);
    expect(badPath('a.'.repeat(50_000))).toMatch(/: longer than 4096 characters; /);
    expect(badPath(`$${'.a'.repeat(2_000)}`)).toBe('path');
  });

  it('R-TN-10 a 10,000-deep path gets the bad json_path answer, never a recursion error', () => {
    // Ten thousand levels are also too long; two thousand are within the length but too deep.
    expect(badPath(`$${'[?('.repeat(10_000)}`)).toMatch(/^\[tool_memory bad json_path: ".*": longer than 4096 characters; /);
    expect(badPath(`$[?${'('.repeat(2_000)}@${')'.repeat(2_000)}]`)).toMatch(
      /^\[tool_memory bad json_path: ".*": brackets or parentheses nested deeper than 64; /,
    );
    expect(badPath(`$[?${'('.repeat(65)}@.a${')'.repeat(65)}]`)).toMatch(/nested deeper than 64/);
    expect(badPath(`$[?${'('.repeat(60)}@.a${')'.repeat(60)}]`)).toBe('path');
    // Brackets inside a string literal are names, not nesting.
    expect(badPath(`$['${'['.repeat(100)}']`)).toBe('path');
  });
});
