import fc from 'fast-check';
import { formatToolCall, TOOL_ARG_VALUE_MAX_CHARS, TOOL_CALL_MAX_CHARS } from '../format-tool-call';

describe('formatToolCall', () => {
  it('R-RC-3 renders top-level arguments in order, strings quoted, scalars bare', () => {
    expect(formatToolCall('query_site_data', { target: 'recent_members' })).toBe('query_site_data(target="recent_members")');
    expect(formatToolCall('query_kpi_trend', { metric: 'active_members', granularity: 'week' })).toBe(
      'query_kpi_trend(metric="active_members", granularity="week")',
    );
    expect(formatToolCall('t', { n: 3, ok: true, none: null, tags: ['a', 1], where: { id: 7 } })).toBe(
      't(n=3, ok=true, none=null, tags=["a",1], …)',
    );
    expect(formatToolCall('t', { 'odd key': 'say "hi"\n' })).toBe('t("odd key"="say \\"hi\\"\\n")');
  });

  it('R-RC-3 renders non-object input as one value', () => {
    expect(formatToolCall('t', null)).toBe('t()');
    expect(formatToolCall('t', undefined)).toBe('t()');
    expect(formatToolCall('t', 'free text')).toBe('t("free text")');
    expect(formatToolCall('t', [1, 2])).toBe('t([1,2])');
    expect(formatToolCall('t', 12.5)).toBe('t(12.5)');
  });

  it('R-RC-3 elides long values inside their quotes and bounds the whole call', () => {
    const call = formatToolCall('search', { q: 'x'.repeat(500) });
    expect(call).toBe(`search(q="${'x'.repeat(TOOL_ARG_VALUE_MAX_CHARS - 3)}…")`);
    const nested = formatToolCall('t', { deep: { a: { b: { c: Array.from({ length: 100_000 }, (_, i) => i) } } } });
    expect(nested).toBe('t(deep={"a":{"b":{"c":[0,1,2,3,4,5,6,7,8,9,10,…)');
    const wide = formatToolCall('n'.repeat(300), { a: 'a'.repeat(60), b: 'b'.repeat(60), c: 'c'.repeat(60) });
    expect(wide.length).toBeLessThanOrEqual(TOOL_CALL_MAX_CHARS);
    expect(wide.endsWith('…)')).toBe(true);
  });

  it('R-RC-3 any input gives a single bounded line, the same bytes every time', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.oneof(fc.jsonValue(), fc.anything()), (name, input) => {
        const call = formatToolCall(name, input);
        expect(call.length).toBeLessThanOrEqual(TOOL_CALL_MAX_CHARS);
        expect(call).toMatch(/^[^\r\n\u0085\u2028\u2029]*\)$/);
        expect(formatToolCall(name, input)).toBe(call);
      }),
      { numRuns: 500 },
    );
  });
});
