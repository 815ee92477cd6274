import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { RecallEventsModule } from '../recall-events';
import { TenancyModule } from '../tenancy';
import { FEEDBACK_ENTITIES } from './entities';
import { FeedbackEventRepository } from './feedback-event.repository';
import { FeedbackStatsRepository } from './feedback-stats.repository';
import { FeedbackInspectionService } from './feedback-inspection.service';
import { FEEDBACK_METRIC_PROVIDERS, FeedbackMetrics } from './feedback.metrics';
import { FeedbackResolver } from './feedback.resolver';
import { FeedbackService } from './feedback.service';
import { RecallEventInspectionRepository } from './recall-event-inspection.repository';
import { RecallEventInspectionResolver } from './recall-event-inspection.resolver';

export const FEEDBACK_RESOLVERS = [FeedbackResolver, RecallEventInspectionResolver];

/** Feedback on recalls: reads recall events through Recall Events, writes only its own table. */
@Module({
  imports: [MikroOrmModule.forFeature(FEEDBACK_ENTITIES), TenancyModule, RecallEventsModule],
  providers: [
    FeedbackEventRepository,
    FeedbackStatsRepository,
    RecallEventInspectionRepository,
    FeedbackService,
    FeedbackInspectionService,
    FeedbackMetrics,
    ...FEEDBACK_METRIC_PROVIDERS,
    ...FEEDBACK_RESOLVERS,
  ],
  exports: [FeedbackService],
})
export class FeedbackModule {}
