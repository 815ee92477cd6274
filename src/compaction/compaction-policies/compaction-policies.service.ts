import { Injectable } from '@nestjs/common';
import type { ActorContext } from '../../tenancy';
import { type StoredCompactionPolicy, CompactionPoliciesRepository } from './compaction-policies.repository';
import {
  checkCompactionPolicy,
  checkPolicyToolName,
  type CompactionPolicySettings,
  MAX_POLICIES_PER_TEAM,
  policyLimitError,
  type ToolCompactionPolicy,
} from './compaction-policy.checks';

/**
 * Team compaction policies (R-LG-4): an admin sets one policy per tool for the team — never
 * compact it, its own keepLastN and threshold, clear its inputs — and compaction applies it to
 * each setting a request leaves unsaid (request value ?? the team's policy for the tool ?? default).
 */
@Injectable()
export class CompactionPoliciesService {
  constructor(private readonly repository: CompactionPoliciesRepository) {}

  list(actor: ActorContext): Promise<StoredCompactionPolicy[]> {
    return this.repository.listForTeam(actor.teamId);
  }

  /** Checked whole before any SQL; a refused policy writes nothing. */
  async set(actor: ActorContext, toolName: string, settings: CompactionPolicySettings): Promise<StoredCompactionPolicy> {
    const policy = checkCompactionPolicy(toolName, settings);
    const saved = await this.repository.upsert(actor.teamId, policy, MAX_POLICIES_PER_TEAM);
    if (saved === null) throw policyLimitError(toolName);
    return saved;
  }

  /** True when the team had a policy for the tool; the request's settings and the defaults apply again. */
  delete(actor: ActorContext, toolName: string): Promise<boolean> {
    checkPolicyToolName(toolName);
    return this.repository.delete(actor.teamId, toolName);
  }

  /** The team's policies by tool name (one small SELECT as the request role): compaction's read. */
  async forTeam(actor: ActorContext): Promise<ReadonlyMap<string, ToolCompactionPolicy>> {
    const policies = await this.repository.settingsForTeam(actor.teamId);
    return new Map(policies.map((policy) => [policy.toolName, policy]));
  }
}
