import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { AppConfig } from '../config/app-config';
import { RetentionSweepService } from './retention-sweep.service';

const JOB = 'retention-sweep';

/** The cron entry point (RETENTION_CRON, hourly by default): a tick only asks the service to sweep. */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetentionScheduler.name);

  constructor(
    private readonly registry: SchedulerRegistry,
    private readonly retention: RetentionSweepService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.retention.enabled) return;
    const job = CronJob.from({
      cronTime: this.config.retention.cron,
      onTick: () => {
        this.retention
          .sweep()
          .catch((error: unknown) =>
            this.logger.error({ msg: 'retention sweep failed', code: (error as { code?: unknown })?.code ?? null }),
          );
      },
    });
    this.registry.addCronJob(JOB, job);
    job.start();
  }
}
