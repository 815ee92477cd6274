import { Module } from '@nestjs/common';
import { ToolResultsModule } from '../tool-results/tool-results.module';
import { CompactionService } from './compaction.service';
import { LedgerResolver } from './ledger.resolver';
import { LedgerService } from './ledger.service';
import { RecallBlockService } from './recall-block.service';
import { RECALL_METRIC_PROVIDERS, RecallMetrics } from './recall.metrics';
import { RecallResolver } from './recall.resolver';

export const RECALL_RESOLVERS = [RecallResolver, LedgerResolver];

@Module({
  imports: [ToolResultsModule],
  providers: [RecallBlockService, LedgerService, CompactionService, RecallMetrics, ...RECALL_METRIC_PROVIDERS, ...RECALL_RESOLVERS],
})
export class RecallModule {}
