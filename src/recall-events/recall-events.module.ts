import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { TenancyModule } from '../tenancy';
import { ToolResultsModule } from '../tool-results';
import { RECALL_EVENT_ENTITIES } from './entities';
import { RecallEventRepository } from './recall-event.repository';
import { RecallEventService } from './recall-event.service';
import { RECALL_EVENT_METRIC_PROVIDERS, RecallEventMetrics } from './recall-events.metrics';
import { RecallEventsResolver } from './recall-events.resolver';

export const RECALL_EVENTS_RESOLVERS = [RecallEventsResolver];

/**
 * Recall events (R-RC-9..11): the record of every recall, ours and external retrievers', that
 * feedback is checked against. Recall stores them; Feedback reads them.
 */
@Module({
  imports: [MikroOrmModule.forFeature(RECALL_EVENT_ENTITIES), TenancyModule, ToolResultsModule],
  providers: [RecallEventRepository, RecallEventService, RecallEventMetrics, ...RECALL_EVENT_METRIC_PROVIDERS, ...RECALL_EVENTS_RESOLVERS],
  exports: [RecallEventService],
})
export class RecallEventsModule {}
