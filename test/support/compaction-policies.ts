/** A team admin's compaction policies (R-LG-4) through the API. */
import { ok, type GraphqlTarget } from './graphql';
import type { TestIdentity } from './test-app';

const FIELDS = 'toolName neverCompact keepLastN sizeThreshold clearInputs version updatedAt';
export const SET_COMPACTION_POLICY = `mutation($tool: String!, $policy: ToolCompactionPolicyInput!) {
  setToolCompactionPolicy(toolName: $tool, policy: $policy) { ${FIELDS} }
}`;
export const COMPACTION_POLICIES = `{ toolCompactionPolicies { ${FIELDS} } }`;
export const DELETE_COMPACTION_POLICY = `mutation($tool: String!) { deleteToolCompactionPolicy(toolName: $tool) }`;

export interface CompactionPolicySettings {
  neverCompact?: boolean | null;
  keepLastN?: number | null;
  sizeThreshold?: number | null;
  clearInputs?: boolean | null;
}

export interface CompactionPolicyRow {
  toolName: string;
  neverCompact: boolean;
  keepLastN: number | null;
  sizeThreshold: number | null;
  clearInputs: boolean;
  version: number;
  updatedAt: string;
}

export async function setCompactionPolicy(
  t: GraphqlTarget,
  admin: TestIdentity,
  toolName: string,
  policy: CompactionPolicySettings,
): Promise<CompactionPolicyRow> {
  return (await ok<{ setToolCompactionPolicy: CompactionPolicyRow }>(t, SET_COMPACTION_POLICY, { tool: toolName, policy }, admin.token))
    .setToolCompactionPolicy;
}

export async function listCompactionPolicies(t: GraphqlTarget, admin: TestIdentity): Promise<CompactionPolicyRow[]> {
  return (await ok<{ toolCompactionPolicies: CompactionPolicyRow[] }>(t, COMPACTION_POLICIES, {}, admin.token)).toolCompactionPolicies;
}
