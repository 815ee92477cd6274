import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { UnitOfWork } from '../database/unit-of-work';
import { FeedbackModule } from '../feedback';
import { RecallEventsModule } from '../recall-events';
import { TenancyModule } from '../tenancy';
import { ToolResultsModule } from '../tool-results';
import { RETENTION_ENTITIES } from './entities';
import { RetentionRepository } from './retention.repository';
import { RETENTION_METRIC_PROVIDERS, RetentionMetrics } from './retention.metrics';
import { RetentionResolver } from './retention.resolver';
import { RetentionScheduler } from './retention.scheduler';
import { RetentionSweepService } from './retention-sweep.service';
import { SweepLeases } from './sweep-leases';
import { UserDeletionService } from './user-deletion.service';

export const RETENTION_RESOLVERS = [RetentionResolver];

/**
 * Forgets on schedule and on request (R-RT-1..6): it asks each module below it to delete from
 * its own tables; none of them imports it. Its own table holds the sweep lease.
 */
@Module({
  imports: [MikroOrmModule.forFeature(RETENTION_ENTITIES), TenancyModule, ToolResultsModule, RecallEventsModule, FeedbackModule],
  providers: [
    RetentionRepository,
    SweepLeases,
    RetentionSweepService,
    UserDeletionService,
    UnitOfWork,
    RetentionScheduler,
    RetentionMetrics,
    ...RETENTION_METRIC_PROVIDERS,
    ...RETENTION_RESOLVERS,
  ],
})
export class RetentionModule {}
