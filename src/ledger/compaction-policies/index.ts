// Team compaction policies (R-LG-4): what the rest of the Ledger module uses.
export type { ToolCompactionPolicy } from './compaction-policy.rules';
export { TeamCompactionPolicy } from './team-compaction-policy.entity';
