import { Module } from '@nestjs/common';
import { RetentionRepository } from './retention.repository';
import { RETENTION_METRIC_PROVIDERS, RetentionMetrics } from './retention.metrics';
import { RetentionResolver } from './retention.resolver';
import { RetentionScheduler } from './retention.scheduler';
import { RetentionService } from './retention.service';

export const RETENTION_RESOLVERS = [RetentionResolver];

/** The top of the module line: forgets what the modules below it stored; none of them imports it. */
@Module({
  providers: [RetentionRepository, RetentionService, RetentionScheduler, RetentionMetrics, ...RETENTION_METRIC_PROVIDERS, ...RETENTION_RESOLVERS],
})
export class RetentionModule {}
