/** A team admin's summary rules (R-RC-3) through the API. */
import { ok, type GraphqlTarget } from './graphql';
import type { TestIdentity } from './test-app';

const FIELDS = 'toolName rule version updatedAt';
export const SET_SUMMARY_RULE = `mutation($tool: String!, $rule: JSON!) { setToolSummaryRule(toolName: $tool, rule: $rule) { ${FIELDS} } }`;
export const SUMMARY_RULES = `{ toolSummaryRules { ${FIELDS} } }`;
export const DELETE_SUMMARY_RULE = `mutation($tool: String!) { deleteToolSummaryRule(toolName: $tool) }`;

export interface SummaryRuleRow {
  toolName: string;
  rule: unknown;
  version: number;
  updatedAt: string;
}

export async function setSummaryRule(t: GraphqlTarget, admin: TestIdentity, toolName: string, rule: unknown): Promise<SummaryRuleRow> {
  return (await ok<{ setToolSummaryRule: SummaryRuleRow }>(t, SET_SUMMARY_RULE, { tool: toolName, rule }, admin.token)).setToolSummaryRule;
}

/** One rule for `{ orders: [...] }`: "<n> orders" (or "1 order"), then the newest `placed_at`. */
export const ORDERS_RULE = {
  version: 1,
  rules: [
    {
      parts: [
        { kind: 'count', path: 'orders', label: 'orders', singular: 'order' },
        { kind: 'maxDate', path: 'orders', field: 'placed_at', label: 'latest', optional: true },
      ],
    },
  ],
};
