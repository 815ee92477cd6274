/**
 * Declarative per-tool summarizers (R-RC-3). A rule applies to a tool name when every `when`
 * value equals the same top-level key of the tool input; its parts render in order, joined
 * with ", ". A part that cannot be read from the output makes the rule fail (the next
 * matching rule, then the generic summarizer, is used) unless the part is `optional`.
 *
 * Paths are dot-separated keys from the root of the tool output; '' is the root itself.
 *
 * JSON shapes the built-in rules read:
 * - query_site_data, target "recent_members": `{ members: [{ name, registered_at }] }`
 *   → "8 members, last registered 2026-05-10"
 * - query_site_data, target "memberships": `{ plans: [{ name, active_members }] }`
 *   → "5 plans, Starter Pack 23 active" (the plan with the most active members)
 * - query_kpi_trend: `{ metric, granularity, points: [{ period, value }] }`, oldest point first
 *   → "7-week trend, +12%" (point count and granularity, change first → last, rounded)
 */
export type SummaryPart =
  /** `<n> <label>`: the length of the array at `path`. */
  | (PartBase<'count'> & { readonly label: string; readonly singular?: string })
  /** `<label> YYYY-MM-DD`: the newest date in `field` across the rows at `path`. */
  | (PartBase<'maxDate'> & { readonly field: string; readonly label: string })
  /** `<name> <value> <suffix>`: the row at `path` with the largest numeric `orderBy`. */
  | (PartBase<'topBy'> & { readonly orderBy: string; readonly nameField: string; readonly suffix: string })
  /** `<n>-<unit> <label>`: the length of the series at `path`, its unit read at `unitPath`. */
  | (PartBase<'seriesLength'> & { readonly unitPath: string; readonly label: string })
  /** `+12%`: the change of `field` from the first to the last row at `path`, rounded, signed. */
  | (PartBase<'percentChange'> & { readonly field: string });

interface PartBase<K extends string> {
  readonly kind: K;
  readonly path: string;
  /** Leave the part out, instead of failing the rule, when the output lacks it. */
  readonly optional?: boolean;
}

type RuleCondition = Readonly<Record<string, string | number | boolean | null>>;

export interface SummarizerRule {
  readonly tool: string;
  /** Top-level tool-input values that must match; omitted means any input. */
  readonly when?: RuleCondition;
  readonly parts: readonly SummaryPart[];
}

/** Rules by tool name, in declaration order. */
export type SummarizerRegistry = ReadonlyMap<string, readonly SummarizerRule[]>;

const BUILT_IN_SUMMARIZER_RULES: readonly SummarizerRule[] = [
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
      // A series starting at zero has no percentage change; the length alone still helps.
      { kind: 'percentChange', path: 'points', field: 'value', optional: true },
    ],
  },
];

export function buildSummarizerRegistry(rules: readonly SummarizerRule[]): SummarizerRegistry {
  const registry = new Map<string, SummarizerRule[]>();
  for (const rule of rules) {
    const forTool = registry.get(rule.tool) ?? [];
    forTool.push(rule);
    registry.set(rule.tool, forTool);
  }
  return registry;
}

export const BUILT_IN_SUMMARIZER_REGISTRY: SummarizerRegistry = buildSummarizerRegistry(BUILT_IN_SUMMARIZER_RULES);
