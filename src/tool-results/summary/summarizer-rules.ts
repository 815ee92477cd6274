import { checkSummaryRuleDocument } from './summary-rule-document';

/**
 * Declarative per-tool summarizers (R-RC-3). A rule applies to a tool name when every `when`
 * value equals the same top-level key of the tool input; its parts render in order, joined
 * with ", ". A part that cannot be read from the output makes the rule fail (the next
 * matching rule, then the generic summarizer, is used) unless the part is `optional`.
 *
 * Paths are dot-separated keys from the root of the tool output; '' is the root itself.
 * Evaluation time is bounded by parts × payload size: each part reads one path and scans the
 * one array there at most once, and a document holds at most 8 rules of 8 parts.
 *
 * A tool's rules are written as one JSON document, `{ "version": 1, "rules": [...] }`: the
 * built-ins below, and a team's own (R-RC-3, `setToolSummaryRule`), which replace the
 * built-ins for that tool. Both pass the same validator (`summary-rule-document.ts`).
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

export type RuleCondition = Readonly<Record<string, string | number | boolean | null>>;

/** One rule of a tool's document. */
export interface SummaryRule {
  /** Top-level tool-input values that must match; omitted means any input. */
  readonly when?: RuleCondition;
  readonly parts: readonly SummaryPart[];
}

/** A rule with the tool it is for, as a list of several tools' rules names it. */
export interface SummarizerRule extends SummaryRule {
  readonly tool: string;
}

/** A tool's rules as stored and exchanged: a versioned JSON document. */
export interface SummaryRuleDocument {
  readonly version: 1;
  readonly rules: readonly SummaryRule[];
}

/** Rules by tool name, in declaration order. */
export type SummarizerRegistry = ReadonlyMap<string, readonly SummaryRule[]>;

/** The built-in documents, by tool name; plain JSON, as a team's would be. */
const BUILT_IN_SUMMARY_RULE_DOCUMENTS: Readonly<Record<string, unknown>> = {
  query_site_data: {
    version: 1,
    rules: [
      {
        when: { target: 'recent_members' },
        parts: [
          { kind: 'count', path: 'members', label: 'members', singular: 'member' },
          { kind: 'maxDate', path: 'members', field: 'registered_at', label: 'last registered', optional: true },
        ],
      },
      {
        when: { target: 'memberships' },
        parts: [
          { kind: 'count', path: 'plans', label: 'plans', singular: 'plan' },
          { kind: 'topBy', path: 'plans', orderBy: 'active_members', nameField: 'name', suffix: 'active', optional: true },
        ],
      },
    ],
  },
  query_kpi_trend: {
    version: 1,
    rules: [
      {
        parts: [
          { kind: 'seriesLength', path: 'points', unitPath: 'granularity', label: 'trend' },
          // A series starting at zero has no percentage change; the length alone still helps.
          { kind: 'percentChange', path: 'points', field: 'value', optional: true },
        ],
      },
    ],
  },
};

export function buildSummarizerRegistry(rules: readonly SummarizerRule[]): SummarizerRegistry {
  const registry = new Map<string, SummarizerRule[]>();
  for (const rule of rules) {
    const forTool = registry.get(rule.tool) ?? [];
    forTool.push(rule);
    registry.set(rule.tool, forTool);
  }
  return registry;
}

/** `base` with each of `documents`' tools summarized by that document alone (a team's rules replace the built-ins). */
export function withRuleDocuments(base: SummarizerRegistry, documents: ReadonlyMap<string, SummaryRuleDocument>): SummarizerRegistry {
  if (documents.size === 0) return base;
  const registry = new Map(base);
  for (const [tool, document] of documents) registry.set(tool, document.rules);
  return registry;
}

/** A built-in document that does not validate is a bug: the module fails to load, naming the part. */
function builtInRegistry(documents: Readonly<Record<string, unknown>>): SummarizerRegistry {
  const registry = new Map<string, readonly SummaryRule[]>();
  for (const [tool, value] of Object.entries(documents)) {
    const checked = checkSummaryRuleDocument(value, `built-in ${tool}`);
    if (!checked.ok) throw new Error(checked.message);
    registry.set(tool, checked.document.rules);
  }
  return registry;
}

export const BUILT_IN_SUMMARIZER_REGISTRY: SummarizerRegistry = builtInRegistry(BUILT_IN_SUMMARY_RULE_DOCUMENTS);
