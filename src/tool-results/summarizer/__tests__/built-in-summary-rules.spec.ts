import fc from 'fast-check';
import { summarizeToolResult } from '../summarize-tool-result';
import { BUILT_IN_SUMMARY_RULE_REGISTRY, buildSummaryRuleRegistry, withRuleDocuments } from '../built-in-summary-rules';
import type { NamedSummaryRule, SummaryRuleDocument } from '../summary-rule.types';

/** The built-in rules as they were written before they became documents: the lines they give are the reference. */
const RULES_BEFORE_DOCUMENTS: readonly NamedSummaryRule[] = [
  {
    tool: 'query_site_data',
    when: { target: 'recent_members' },
    parts: [
      { kind: 'count', path: 'members', label: 'members', singular: 'member' },
      { kind: 'maxDate', path: 'members', field: 'registered_at', label: 'last registered', optional: true },
    ],
  },
  {
    tool: 'query_site_data',
    when: { target: 'memberships' },
    parts: [
      { kind: 'count', path: 'plans', label: 'plans', singular: 'plan' },
      { kind: 'topBy', path: 'plans', orderBy: 'active_members', nameField: 'name', suffix: 'active', optional: true },
    ],
  },
  {
    tool: 'query_kpi_trend',
    parts: [
      { kind: 'seriesLength', path: 'points', unitPath: 'granularity', label: 'trend' },
      { kind: 'percentChange', path: 'points', field: 'value', optional: true },
    ],
  },
];
const REGISTRY_BEFORE = buildSummaryRuleRegistry(RULES_BEFORE_DOCUMENTS);

const members = {
  members: [
    { name: 'Ada', registered_at: '2026-05-03' },
    { name: 'Lin', registered_at: '2026-05-10T08:00:00+02:00' },
  ],
};
const plans = {
  plans: [
    { name: 'Solo', active_members: 3 },
    { name: 'Starter Pack', active_members: 23 },
  ],
};
const trend = { metric: 'active_members', granularity: 'week', points: [50, 51, 52, 53, 54, 55, 56].map((value) => ({ value })) };

describe('built-in summary rules as documents', () => {
  it('R-RC-3 the built-in documents hold the rules as they were written before', () => {
    const byTool = new Map<string, unknown[]>();
    for (const { tool, ...rule } of RULES_BEFORE_DOCUMENTS) byTool.set(tool, [...(byTool.get(tool) ?? []), rule]);
    expect(new Map(BUILT_IN_SUMMARY_RULE_REGISTRY)).toEqual(byTool);
  });

  it('R-RC-3 the built-ins give the lines they gave before, byte for byte', () => {
    const cases: [string, unknown, unknown, string][] = [
      ['query_site_data', { target: 'recent_members' }, members, '2 members, last registered 2026-05-10'],
      ['query_site_data', { target: 'recent_members' }, { members: [{}] }, '1 member'],
      ['query_site_data', { target: 'memberships' }, JSON.stringify(plans), '2 plans, Starter Pack 23 active'],
      ['query_kpi_trend', { metric: 'active_members' }, trend, '7-week trend, +12%'],
      ['query_kpi_trend', {}, { granularity: 'month', points: [{ value: 0 }, { value: 4 }] }, '2-month trend'],
      ['query_site_data', { target: 'other' }, members, '1 key: members[2]; newest 2026-05-10'],
    ];
    for (const [tool, input, output, line] of cases) {
      expect(summarizeToolResult(tool, input, output)).toBe(line);
      expect(summarizeToolResult(tool, input, output, REGISTRY_BEFORE)).toBe(line);
    }
  });

  it('R-RC-3 on any input and output the built-in documents and the rules before them give the same bytes', () => {
    const toolNames = fc.constantFrom('query_site_data', 'query_kpi_trend', 'other');
    const inputs = fc.oneof(fc.record({ target: fc.constantFrom('recent_members', 'memberships', 'other') }), fc.jsonValue());
    const rows = (row: fc.Arbitrary<Record<string, unknown>>) => fc.array(row, { maxLength: 12 });
    const outputs = fc.oneof(
      fc.jsonValue(),
      fc.record({ members: rows(fc.record({ registered_at: fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map(String)) })) }),
      fc.record({ plans: rows(fc.record({ name: fc.jsonValue(), active_members: fc.jsonValue() })) }),
      fc.record({ granularity: fc.jsonValue(), points: rows(fc.record({ value: fc.oneof(fc.double(), fc.integer()) })) }),
    );
    fc.assert(
      fc.property(toolNames, inputs, outputs, (tool, input, output) => {
        expect(summarizeToolResult(tool, input, output)).toBe(summarizeToolResult(tool, input, output, REGISTRY_BEFORE));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('a team document in place of the built-ins', () => {
  const kpiPercentOnly: SummaryRuleDocument = {
    version: 1,
    rules: [{ parts: [{ kind: 'percentChange', path: 'points', field: 'value' }] }],
  };
  const membershipsOnly: SummaryRuleDocument = {
    version: 1,
    rules: [{ when: { target: 'memberships' }, parts: [{ kind: 'count', path: 'plans', label: 'tiers' }] }],
  };

  it('R-RC-3 replaces every built-in rule of its tool and leaves the other tools alone', () => {
    const team = withRuleDocuments(
      BUILT_IN_SUMMARY_RULE_REGISTRY,
      new Map([
        ['query_kpi_trend', kpiPercentOnly],
        ['query_site_data', membershipsOnly],
      ]),
    );
    expect(summarizeToolResult('query_kpi_trend', {}, trend, team)).toBe('+12%');
    expect(summarizeToolResult('query_site_data', { target: 'memberships' }, plans, team)).toBe('2 tiers');
    // The document has no rule for recent members: the generic summary, not the built-in rule it replaced.
    expect(summarizeToolResult('query_site_data', { target: 'recent_members' }, members, team)).toBe(
      '1 key: members[2]; newest 2026-05-10',
    );
    // The built-ins themselves are untouched.
    expect(summarizeToolResult('query_kpi_trend', {}, trend)).toBe('7-week trend, +12%');
  });

  it('R-RC-3 adds rules for a tool without built-ins, and no documents is the built-in registry itself', () => {
    const orders: SummaryRuleDocument = {
      version: 1,
      rules: [{ parts: [{ kind: 'count', path: 'orders', label: 'orders', singular: 'order' }] }],
    };
    const team = withRuleDocuments(BUILT_IN_SUMMARY_RULE_REGISTRY, new Map([['search_orders', orders]]));
    expect(summarizeToolResult('search_orders', {}, { orders: [{ id: 1 }] }, team)).toBe('1 order');
    expect(summarizeToolResult('search_orders', {}, { orders: [{ id: 1 }] })).toBe('1 key: orders[1]');
    expect(withRuleDocuments(BUILT_IN_SUMMARY_RULE_REGISTRY, new Map())).toBe(BUILT_IN_SUMMARY_RULE_REGISTRY);
  });
});
