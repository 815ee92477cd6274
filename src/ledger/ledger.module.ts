import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { ToolResultsModule } from '../tool-results';
import {
  CompactionPoliciesRepository,
  CompactionPoliciesResolver,
  CompactionPoliciesService,
  TeamCompactionPolicy,
} from './compaction-policies';
import { CompactionService } from './compaction.service';
import { LedgerResolver } from './ledger.resolver';
import { LedgerService } from './ledger.service';
import { JSON_PATH_METRIC_PROVIDERS, JsonPathMetrics } from './json-path/json-path.metrics';
import { DatabasePathTurns } from './json-path/database-path-turns';
import { LookupPool } from './lookup-pool';

export const LEDGER_RESOLVERS = [LedgerResolver, CompactionPoliciesResolver];

export const LEDGER_ENTITIES = [TeamCompactionPolicy];

/**
 * The ledger (R-LG-1..4): handles in use. Keyed recall of one snapshot by mem id, answered in
 * bounded windows, and compaction of a message list into stubs. It reads and records snapshots
 * through ToolResults only; the one table it owns holds the teams' compaction policies.
 */
@Module({
  imports: [ToolResultsModule, MikroOrmModule.forFeature(LEDGER_ENTITIES)],
  providers: [
    LedgerService,
    CompactionService,
    CompactionPoliciesRepository,
    CompactionPoliciesService,
    LookupPool,
    DatabasePathTurns,
    JsonPathMetrics,
    ...JSON_PATH_METRIC_PROVIDERS,
    ...LEDGER_RESOLVERS,
  ],
  exports: [LedgerService, CompactionService],
})
export class LedgerModule {}
