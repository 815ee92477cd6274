import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { ToolResultsModule } from '../tool-results/tool-results.module';
import { RecallEventRepository } from './events/recall-event.repository';
import { RecallEventService } from './events/recall-event.service';
import { RecallEventsResolver } from './recall-events.resolver';
import { RecallSearchService } from './recall-search.service';
import { CompactionService } from './compaction.service';
import { LedgerResolver } from './ledger.resolver';
import { LedgerService } from './ledger.service';
import { RecallBlockService } from './recall-block.service';
import { RECALL_METRIC_PROVIDERS, RecallMetrics } from './recall.metrics';
import { RecallResolver } from './recall.resolver';

export const RECALL_RESOLVERS = [RecallResolver, LedgerResolver, RecallEventsResolver];

@Module({
  imports: [TenancyModule, ToolResultsModule],
  providers: [
    RecallBlockService,
    LedgerService,
    CompactionService,
    RecallSearchService,
    RecallEventRepository,
    RecallEventService,
    RecallMetrics,
    ...RECALL_METRIC_PROVIDERS,
    ...RECALL_RESOLVERS,
  ],
  exports: [RecallEventService, LedgerService, RecallBlockService, RecallSearchService],
})
export class RecallModule {}
