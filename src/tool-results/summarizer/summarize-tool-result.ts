import { readJsonText } from '../../common/text/json-text';
import { evaluateSummaryPart } from './evaluate-summary-part';
import { summarizeGeneric } from './generic-summarizer';
import { BUILT_IN_SUMMARY_RULE_REGISTRY } from './built-in-summary-rules';
import type { SummaryRule, SummaryRuleRegistry } from './summary-rule.types';
import { boundLine, isRecord } from '../../common/text/text-bounds';

/** Bound of the summary after the colon of a block line. */
export const SUMMARY_MAX_CHARS = 100;

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
  const output = readJsonText(toolOutput);
  const summary = summarizeByRule(registry.get(toolName) ?? [], toolInput, output) ?? summarizeGeneric(output);
  return boundLine(summary, SUMMARY_MAX_CHARS) || 'no data';
}

function summarizeByRule(rules: readonly SummaryRule[], input: unknown, output: unknown): string | null {
  for (const rule of rules) {
    if (!matches(rule, input)) continue;
    const texts: string[] = [];
    let complete = true;
    for (const part of rule.parts) {
      const text = evaluateSummaryPart(part, output);
      if (text !== null) texts.push(text);
      else if (!part.optional) complete = false;
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
