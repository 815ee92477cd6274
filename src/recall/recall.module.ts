import { Module } from '@nestjs/common';
import { RecallEventsModule } from '../recall-events';
import { TenancyModule } from '../tenancy';
import { ToolResultsModule } from '../tool-results';
import { PriorResultsService } from './prior-results.service';
import { RecallBlockService } from './recall-block.service';
import { RecallReads } from './recall-reads.service';
import { RecallReadsRepository } from './recall-reads.repository';
import { RecallSearchService } from './recall-search.service';
import { RECALL_METRIC_PROVIDERS, RecallMetrics } from './recall.metrics';
import { RecallResolver } from './recall.resolver';

export const RECALL_RESOLVERS = [RecallResolver];

/**
 * Recall across snapshots (R-RC-1..10): the "Previously fetched" block, prior results and the
 * full-text search. Each recall is stored as a recall event through Recall Events.
 */
@Module({
  imports: [TenancyModule, ToolResultsModule, RecallEventsModule],
  providers: [
    RecallBlockService,
    RecallSearchService,
    PriorResultsService,
    RecallReads,
    RecallReadsRepository,
    RecallMetrics,
    ...RECALL_METRIC_PROVIDERS,
    ...RECALL_RESOLVERS,
  ],
  exports: [RecallBlockService, RecallSearchService, PriorResultsService],
})
export class RecallModule {}
