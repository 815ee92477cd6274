import { Module } from '@nestjs/common';
import { RecallModule } from '../recall/recall.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { FeedbackEventRepository } from './feedback-event.repository';
import { FeedbackInspectionService } from './feedback-inspection.service';
import { FEEDBACK_METRIC_PROVIDERS, FeedbackMetrics } from './feedback.metrics';
import { FeedbackResolver } from './feedback.resolver';
import { FeedbackService } from './feedback.service';

export const FEEDBACK_RESOLVERS = [FeedbackResolver];

/** Feedback on recalls: reads recall events through Recall, writes only its own table. */
@Module({
  imports: [TenancyModule, RecallModule],
  providers: [FeedbackEventRepository, FeedbackService, FeedbackInspectionService, FeedbackMetrics, ...FEEDBACK_METRIC_PROVIDERS, ...FEEDBACK_RESOLVERS],
  exports: [FeedbackService],
})
export class FeedbackModule {}
