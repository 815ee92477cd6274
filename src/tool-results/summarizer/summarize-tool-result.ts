import { readJsonText } from '../../common/text/json-text';
import { evaluateSummaryPart, partRowVisits, partTarget } from './evaluate-summary-part';
import { summarizeGeneric } from './generic-summarizer';
import { BUILT_IN_SUMMARY_RULE_REGISTRY } from './built-in-summary-rules';
import { SUMMARY_RULE_ROW_BUDGET } from './summary-rule-document';
import type { SummaryRule, SummaryRuleRegistry } from './summary-rule.types';
import { boundLine, isRecord } from '../../common/text/text-bounds';

/** Bound of the summary after the colon of a block line. */
export const SUMMARY_MAX_CHARS = 100;

/** A summary line, and whether the rules ran out of their row budget (the generic summary stands in). */
export interface OutputSummary {
  text: string;
  overBudget: boolean;
}

/**
 * A one-line, bounded, deterministic summary of a tool result (R-RC-3): the first rule for
 * the tool whose condition and required parts hold, else the generic summarizer. An output
 * stored as JSON text is read as the JSON it holds. `registry`: the built-ins, or a team's
 * (its documents in place of the built-ins for their tools).
 */
export function summarizeToolResult(
  toolName: string,
  toolInput: unknown,
  toolOutput: unknown,
  registry: SummaryRuleRegistry = BUILT_IN_SUMMARY_RULE_REGISTRY,
): string {
  return summarizeOutput(applicableRules(registry, toolName, toolInput), readJsonText(toolOutput)).text;
}

/** The tool's rules whose condition this input meets, in order: the only ones its summary may use. */
export function applicableRules(registry: SummaryRuleRegistry, toolName: string, toolInput: unknown): SummaryRule[] {
  return (registry.get(toolName) ?? []).filter((rule) => matches(rule, toolInput));
}

/**
 * `summarizeToolResult` of an output as readJsonText gives it, by `rules` (applicableRules'):
 * the first whose required parts hold, within `budget` row visits for all of them
 * (SUMMARY_RULE_ROW_BUDGET), else the generic summary.
 */
export function summarizeOutput(rules: readonly SummaryRule[], output: unknown, budget = SUMMARY_RULE_ROW_BUDGET): OutputSummary {
  const byRule = summarizeByRule(rules, output, budget);
  const overBudget = byRule === OVER_BUDGET;
  const summary = byRule === null || overBudget ? summarizeGeneric(output) : byRule;
  return { text: boundLine(summary, SUMMARY_MAX_CHARS) || 'no data', overBudget };
}

/**
 * The most row visits `rules` may cost on this output: what summarizeOutput charges when every
 * rule is tried and every part evaluated. Reads only the parts' paths, not their rows.
 */
export function ruleRowVisitsAtMost(rules: readonly SummaryRule[], output: unknown): number {
  let visits = 0;
  for (const rule of rules) for (const part of rule.parts) visits += partRowVisits(part, partTarget(part, output));
  return visits;
}

const OVER_BUDGET = Symbol('over budget');

/**
 * Each part is charged its row visits before it runs; a rule stops at its first required part
 * that finds nothing (the next rule is tried), and the whole evaluation stops when a part would
 * pass the budget: its cost is then bounded by the budget, however many rules, parts and rows.
 */
function summarizeByRule(rules: readonly SummaryRule[], output: unknown, budget: number): string | null | typeof OVER_BUDGET {
  let left = budget;
  for (const rule of rules) {
    const texts: string[] = [];
    let complete = true;
    for (const part of rule.parts) {
      const target = partTarget(part, output);
      const visits = partRowVisits(part, target);
      if (visits > left) return OVER_BUDGET;
      left -= visits;
      const text = evaluateSummaryPart(part, target, output);
      if (text !== null) texts.push(text);
      else if (!part.optional) {
        complete = false;
        break;
      }
    }
    if (complete && texts.length > 0) return texts.join(', ');
  }
  return null;
}

function matches(rule: SummaryRule, input: unknown): boolean {
  if (rule.when === undefined) return true;
  if (!isRecord(input)) return false;
  return Object.entries(rule.when).every(([key, expected]) => Object.hasOwn(input, key) && input[key] === expected);
}
