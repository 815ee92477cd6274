import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { HealthController } from './health.controller';

/** `/health`, `/health/ready` and `/metrics` (R-OP-1). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), PrometheusModule.register({ path: '/metrics', defaultMetrics: { enabled: true } })],
  controllers: [HealthController],
})
export class ObservabilityModule {}
