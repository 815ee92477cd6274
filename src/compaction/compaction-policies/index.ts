// Team compaction policies (R-LG-4): what the rest of the Compaction module uses.
export { CompactionPoliciesResolver } from './compaction-policies.resolver';
export { CompactionPoliciesRepository } from './compaction-policies.repository';
export { CompactionPoliciesService } from './compaction-policies.service';
export type { ToolCompactionPolicy } from './compaction-policy.checks';
export { TeamCompactionPolicy } from './team-compaction-policy.entity';
