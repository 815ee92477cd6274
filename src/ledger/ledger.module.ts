import { Module } from '@nestjs/common';
import { ToolResultsModule } from '../tool-results';
import { CompactionService } from './compaction.service';
import { CompactionPoliciesService } from './compaction-policies';
import { LedgerResolver } from './ledger.resolver';
import { LedgerService } from './ledger.service';
import { JSON_PATH_METRIC_PROVIDERS, JsonPathMetrics } from './json-path/json-path.metrics';
import { JsonPathPool } from './json-path/json-path-pool';

export const LEDGER_RESOLVERS = [LedgerResolver];

/**
 * The ledger (R-LG-1..3): handles in use. Keyed recall of one snapshot by mem id, answered in
 * bounded windows, and compaction of a message list into stubs. It reads and records snapshots
 * through ToolResults only; it stores nothing of its own.
 */
@Module({
  imports: [ToolResultsModule],
  providers: [
    LedgerService,
    CompactionService,
    CompactionPoliciesService,
    JsonPathPool,
    JsonPathMetrics,
    ...JSON_PATH_METRIC_PROVIDERS,
    ...LEDGER_RESOLVERS,
  ],
  exports: [LedgerService, CompactionService],
})
export class LedgerModule {}
