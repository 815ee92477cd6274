import fc from 'fast-check';
import { summarizeGeneric, summarizeText } from '../generic-summarizer';
import { summarizeToolResult, SUMMARY_MAX_CHARS } from '../summarize-tool-result';
import { buildSummaryRuleRegistry } from '../built-in-summary-rules';

const SINGLE_LINE = /^[^\r\n\u0085\u2028\u2029]*$/;

function nested(depth: number): unknown {
  let node: unknown = { created_at: '2026-01-02' };
  for (let i = 0; i < depth; i += 1) node = [node];
  return node;
}

describe('summarizeToolResult rules', () => {
  it('R-RC-3 reads the built-in shapes of the example tools', () => {
    const members = { members: [{ registered_at: '2026-05-03' }, { registered_at: '2026-05-10T08:00:00+02:00' }] };
    expect(summarizeToolResult('query_site_data', { target: 'recent_members' }, members)).toBe('2 members, last registered 2026-05-10');
    expect(summarizeToolResult('query_site_data', { target: 'recent_members' }, { members: [{}] })).toBe('1 member');
    const plans = {
      plans: [
        { name: 'Solo', active_members: 3 },
        { name: 'Club', active_members: 40 },
      ],
    };
    expect(summarizeToolResult('query_site_data', { target: 'memberships' }, JSON.stringify(plans))).toBe('2 plans, Club 40 active');
    const falling = { granularity: 'day', points: [{ value: 50 }, { value: 40 }, { value: 44 }] };
    expect(summarizeToolResult('query_kpi_trend', {}, falling)).toBe('3-day trend, -12%');
    const fromZero = { granularity: 'month', points: [{ value: 0 }, { value: 4 }] };
    expect(summarizeToolResult('query_kpi_trend', {}, fromZero)).toBe('2-month trend');
  });

  it('R-RC-3 falls back to the generic summarizer when no rule matches or fields are missing', () => {
    expect(summarizeToolResult('query_site_data', { target: 'recent_members' }, { rows: [1, 2] })).toBe('1 key: rows[2]');
    expect(summarizeToolResult('query_site_data', { target: 'other' }, [1, 2, 3])).toBe('3 items');
    expect(summarizeToolResult('query_kpi_trend', {}, { points: [] })).toBe('1 key: points[0]');
    expect(summarizeToolResult('unknown_tool', null, 'Done.\nAll good')).toBe('Done. All good');
  });

  it('R-RC-3 uses a custom registry, first matching rule wins', () => {
    const registry = buildSummaryRuleRegistry([
      { tool: 'search', when: { scope: 'docs' }, parts: [{ kind: 'count', path: 'hits', label: 'docs' }] },
      { tool: 'search', parts: [{ kind: 'count', path: 'data.hits', label: 'hits' }] },
    ]);
    expect(summarizeToolResult('search', { scope: 'docs' }, { hits: [1] }, registry)).toBe('1 docs');
    expect(summarizeToolResult('search', { scope: 'web' }, { data: { hits: [1, 2] } }, registry)).toBe('2 hits');
    expect(summarizeToolResult('search', {}, { constructor: [] }, registry)).toBe('1 key: constructor[0]');
  });
});

describe('generic summarizer', () => {
  it('R-RC-3 gives the array length and the newest date-like value', () => {
    const rows = [
      { id: 1, created_at: '2026-03-01T10:00:00Z' },
      { id: 2, createdAt: 1_778_400_000 },
      { id: 3, meta: { seen: '2026-04-30' } },
      { id: 4, note: '2027-02-30' },
    ];
    expect(summarizeGeneric(rows)).toBe('4 items; newest 2026-05-10');
    expect(summarizeGeneric([])).toBe('0 items');
    expect(summarizeGeneric([{ count: 1_778_400_000 }])).toBe('1 item');
  });

  it('R-RC-3 lists a bounded set of top-level keys', () => {
    expect(summarizeGeneric({ members: [1, 2], total: 2, next: null })).toBe('3 keys: members[2], total, next');
    expect(summarizeGeneric({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 })).toBe('7 keys: a, b, c, d, e, …');
    expect(summarizeGeneric({})).toBe('empty object');
    expect(summarizeGeneric(null)).toBe('no data');
    expect(summarizeGeneric(42)).toBe('42');
  });

  it('R-RC-3 gives the first words of text', () => {
    expect(summarizeText('  The import finished:\n\t42 rows written.  ')).toBe('The import finished: 42 rows written.');
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    expect(summarizeText(long)).toBe('w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11…');
    expect(summarizeText('')).toBe('empty text');
    expect(summarizeText(' \n ')).toBe('blank text');
  });

  it('R-RC-3 survives deep nesting, huge arrays and weird keys', () => {
    expect(summarizeToolResult('t', {}, nested(50_000))).toBe('1 item');
    const huge = Array.from({ length: 200_000 }, (_, i) => ({ i, at: i === 5 ? '2026-01-01' : null }));
    expect(summarizeToolResult('t', {}, huge)).toBe('200000 items; newest 2026-01-01');
    const weird = { '': 1, 'line\nbreak': 2, ['k'.repeat(500)]: 3, __proto__x: 4, '<|endoftext|>': 5 };
    const summary = summarizeToolResult('t', {}, weird);
    expect(summary).toMatch(SINGLE_LINE);
    expect(summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(summarizeToolResult('t', {}, 'x'.repeat(1_000_000))).toHaveLength(SUMMARY_MAX_CHARS);
  });
});

describe('summarizeToolResult properties', () => {
  const toolNames = fc.oneof(fc.constantFrom('query_site_data', 'query_kpi_trend', 'other'), fc.string());
  const inputs = fc.oneof(fc.record({ target: fc.constantFrom('recent_members', 'memberships') }), fc.jsonValue());
  const outputs = fc.oneof(
    fc.jsonValue(),
    fc.json(),
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.record({
      members: fc.array(
        fc.record({
          registered_at: fc.oneof(
            fc.string(),
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          ),
        }),
      ),
    }),
    fc.record({ plans: fc.array(fc.record({ name: fc.jsonValue(), active_members: fc.jsonValue() })) }),
    fc.record({ granularity: fc.jsonValue(), points: fc.array(fc.record({ value: fc.double() })) }),
  );

  it('R-RC-3 any JSON gives a single bounded line, the same bytes every time', () => {
    fc.assert(
      fc.property(toolNames, inputs, outputs, (name, input, output) => {
        const summary = summarizeToolResult(name, input, output);
        expect(summary).toMatch(SINGLE_LINE);
        expect(summary.length).toBeGreaterThan(0);
        expect(summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
        expect(summary).toBe(summary.trim());
        expect(summarizeToolResult(name, structuredClone(input), structuredClone(output))).toBe(summary);
      }),
      { numRuns: 500 },
    );
  });
});
