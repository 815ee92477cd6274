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
      mode: 'substring',
      substring: 'Price',
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

  it('R-LG-2 answers two keys, a bad range, a bad max_tokens, a bad query or a bad path with bracketed text, without a query', () => {
    expect(plan({ query: '' })).toEqual({ mode: 'answer', text: '[tool_memory bad query: query must not be empty]' });
    expect(plan({ query: 'q'.repeat(1001) })).toEqual({ mode: 'answer', text: '[tool_memory bad query: longer than 1000 chars]' });
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

describe('pattern', () => {
  /** The plan without its calls, plus the search call it names from line 42 and the chars call from 7. */
  const planPattern = (args: Partial<LookupArguments>) => {
    const planned = planLookup({ ...NONE, ...args }, LIMITS);
    if (planned.mode !== 'pattern') return planned;
    const { calls, ...rest } = planned;
    return { ...rest, next: calls.lines(42, null), counted: calls.lines(42, 10), chars: calls.chars(7) };
  };

  it('R-LG-2 a pattern searches from line_start for line_count lines; the call it names repeats pattern, context_lines and bounds', () => {
    expect(planPattern({ pattern: 'ERROR|WARN' })).toEqual({
      mode: 'pattern',
      pattern: 'ERROR|WARN',
      contextLines: 0,
      lineStart: 1,
      lineCount: null,
      bounds: BOUNDS,
      next: `recall_tool_result(mem_id='${MEM}', pattern="ERROR|WARN", line_start=42)`,
      counted: `recall_tool_result(mem_id='${MEM}', pattern="ERROR|WARN", line_start=42, line_count=10)`,
      chars: `recall_tool_result(mem_id='${MEM}', offset=7)`,
    });
    expect(
      planPattern({ pattern: '^\\d+ "x"', contextLines: 2, lineStart: 5, lineCount: 100, maxChars: 900, maxTokens: 500, format: 'FULL' }),
    ).toEqual({
      mode: 'pattern',
      pattern: '^\\d+ "x"',
      contextLines: 2,
      lineStart: 5,
      lineCount: 100,
      bounds: { maxTokens: 500, maxChars: 900 },
      next: `recall_tool_result(mem_id='${MEM}', pattern="^\\\\d+ \\"x\\"", context_lines=2, line_start=42, max_chars=900, max_tokens=500)`,
      counted: `recall_tool_result(mem_id='${MEM}', pattern="^\\\\d+ \\"x\\"", context_lines=2, line_start=42, line_count=10, max_chars=900, max_tokens=500)`,
      chars: `recall_tool_result(mem_id='${MEM}', offset=7, max_chars=900, max_tokens=500)`,
    });
  });

  it('R-LG-2 a pattern with query, json_path or offset, or context_lines without a pattern, is refused without a query', () => {
    const pattern =
      '[tool_memory bad arguments: pattern searches lines (from line_start, for line_count lines); give it without query, json_path or offset]';
    expect(planPattern({ pattern: 'a', query: 'a' })).toEqual({ mode: 'answer', text: pattern });
    expect(planPattern({ pattern: 'a', jsonPath: '$.a' })).toEqual({ mode: 'answer', text: pattern });
    expect(planPattern({ pattern: 'a', offset: 0 })).toEqual({ mode: 'answer', text: pattern });
    expect(planPattern({ contextLines: 2, lineStart: 3 })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad arguments: context_lines goes with pattern; give a pattern, or leave context_lines out]',
    });
  });

  it('R-LG-2 an over-long pattern, a bad context_lines or a bad line range is refused before anything is compiled', () => {
    expect(planPattern({ pattern: `(${'a'.repeat(1000)})` })).toEqual({
      mode: 'answer',
      text: `[tool_memory bad pattern: "(${'a'.repeat(78)}…": longer than 1000 characters; write RE2 syntax such as ERROR|WARN, ^\\d{4}-\\d\\d-\\d\\d, timeout after \\d+ ms or (?i)connection reset (no backreferences or lookaround)]`,
    });
    expect(planPattern({ pattern: 'a'.repeat(1000) })).toMatchObject({ mode: 'pattern' });
    expect(planPattern({ pattern: 'a', contextLines: 51 })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad context_lines: must be an integer from 0 to 50, got 51]',
    });
    expect(planPattern({ pattern: 'a', lineStart: 0 })).toEqual({
      mode: 'answer',
      text: '[tool_memory bad range: line_start must be a positive integer, got 0]',
    });
    expect(planPattern({ pattern: 'a', memId: 'mem_X' })).toEqual({ mode: 'answer', text: '[tool_memory not found: mem_X]' });
  });
});
