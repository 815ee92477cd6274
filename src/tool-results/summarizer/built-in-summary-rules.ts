import { checkSummaryRuleDocument } from './summary-rule-document';
import type { NamedSummaryRule, SummaryRule, SummaryRuleDocument, SummaryRuleRegistry } from './summary-rule.types';

/**
 * The built-in documents, by tool name; plain JSON, as a team's would be.
 *
 * JSON shapes the built-in rules read:
 * - query_site_data, target "recent_members": `{ members: [{ name, registered_at }] }`
 *   → "8 members, last registered 2026-05-10"
 * - query_site_data, target "memberships": `{ plans: [{ name, active_members }] }`
 *   → "5 plans, Starter Pack 23 active" (the plan with the most active members)
 * - query_kpi_trend: `{ metric, granularity, points: [{ period, value }] }`, oldest point first
 *   → "7-week trend, +12%" (point count and granularity, change first → last, rounded)
 */
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

export function buildSummaryRuleRegistry(rules: readonly NamedSummaryRule[]): SummaryRuleRegistry {
  const registry = new Map<string, NamedSummaryRule[]>();
  for (const rule of rules) {
    const forTool = registry.get(rule.tool) ?? [];
    forTool.push(rule);
    registry.set(rule.tool, forTool);
  }
  return registry;
}

/** `base` with each of `documents`' tools summarized by that document alone (a team's rules replace the built-ins). */
export function withRuleDocuments(base: SummaryRuleRegistry, documents: ReadonlyMap<string, SummaryRuleDocument>): SummaryRuleRegistry {
  if (documents.size === 0) return base;
  const registry = new Map(base);
  for (const [tool, document] of documents) registry.set(tool, document.rules);
  return registry;
}

/** A built-in document that does not validate is a bug: the module fails to load, naming the part. */
function builtInRegistry(documents: Readonly<Record<string, unknown>>): SummaryRuleRegistry {
  const registry = new Map<string, readonly SummaryRule[]>();
  for (const [tool, value] of Object.entries(documents)) {
    const checked = checkSummaryRuleDocument(value, `built-in ${tool}`);
    if (!checked.ok) throw new Error(checked.message);
    registry.set(tool, checked.document.rules);
  }
  return registry;
}

export const BUILT_IN_SUMMARY_RULE_REGISTRY: SummaryRuleRegistry = builtInRegistry(BUILT_IN_SUMMARY_RULE_DOCUMENTS);
