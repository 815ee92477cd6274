import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { RetentionMetrics, type SweptTable } from './retention.metrics';
import { RetentionRepository, SWEEP_LEASE, USER_DATA_TABLES } from './retention.repository';

const DAY_MS = 86_400_000;

export interface TableCount {
  table: string;
  count: number;
}

export interface RetentionReport {
  /** True when another replica held the sweep lease. */
  skipped: boolean;
  deleted: TableCount[];
  durationMs: number;
}

export interface DeletionReport {
  userId: string;
  deleted: TableCount[];
}

type Step = { table: SweptTable; days: number; run: (cutoff: Date, limit: number, timeoutMs: number) => Promise<number> };

/**
 * Forgetting on schedule (R-RT-1..3, R-RT-5) and on request (R-RT-4). One replica sweeps at a
 * time: the holder of the lease. The cron, `runRetentionSweep` and the tests all call `sweep()`.
 */
@Injectable()
export class RetentionService implements OnApplicationShutdown {
  private readonly logger = new Logger(RetentionService.name);
  /** This process, as a lease holder. */
  private readonly holder = `${hostname().slice(0, 32)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running: Promise<RetentionReport> | null = null;
  private stopping = false;

  constructor(
    private readonly repository: RetentionRepository,
    private readonly config: AppConfig,
    private readonly metrics: RetentionMetrics,
  ) {}

  /** Runs a sweep now, unless this process or another replica is already sweeping. */
  sweep(now = new Date()): Promise<RetentionReport> {
    if (this.running) return Promise.resolve({ skipped: true, deleted: [], durationMs: 0 });
    this.running = this.sweepOnce(now).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async sweepOnce(now: Date): Promise<RetentionReport> {
    const started = Date.now();
    const { batchSize, statementTimeoutMs, leaseMs, batchPauseMs } = this.config.retention;
    if (!(await this.repository.acquireLease(SWEEP_LEASE, this.holder, leaseMs))) {
      this.logger.log({ msg: 'retention sweep skipped: another replica holds the sweep lease' });
      return { skipped: true, deleted: [], durationMs: Date.now() - started };
    }
    const deleted: TableCount[] = [];
    let leaseLost = false;
    try {
      for (const step of this.steps()) {
        const cutoff = new Date(now.getTime() - step.days * DAY_MS);
        let count = 0;
        for (;;) {
          const rows = await step.run(cutoff, batchSize, statementTimeoutMs);
          count += rows;
          this.metrics.swept(step.table, rows);
          if (rows < batchSize || this.stopping) break;
          // Between batches: keep the lease, or stop the whole sweep if another replica took it over.
          leaseLost = !(await this.repository.acquireLease(SWEEP_LEASE, this.holder, leaseMs));
          if (leaseLost) break;
          if (batchPauseMs > 0) await setTimeout(batchPauseMs);
        }
        deleted.push({ table: step.table, count });
        if (this.stopping || leaseLost) break;
      }
      if (leaseLost) this.logger.warn({ msg: 'retention sweep stopped: another replica took the sweep lease over' });
    } finally {
      await this.repository.releaseLease(SWEEP_LEASE, this.holder);
    }
    const report = { skipped: false, deleted, durationMs: Date.now() - started };
    this.logger.log({ msg: 'retention sweep done', deleted: Object.fromEntries(deleted.map((d) => [d.table, d.count])), durationMs: report.durationMs });
    return report;
  }

  /** Comments first: a feedback event past both bounds is deleted, not cleared and then deleted. */
  private steps(): Step[] {
    const r = this.config.retention;
    return [
      { table: 'feedback_events', days: r.feedbackEventDays, run: (c, l, t) => this.repository.deleteExpiredFeedbackEventsBatch(c, l, t) },
      { table: 'feedback_comments', days: r.feedbackCommentDays, run: (c, l, t) => this.repository.clearExpiredFeedbackCommentsBatch(c, l, t) },
      { table: 'recall_events', days: r.recallEventDays, run: (c, l, t) => this.repository.deleteExpiredRecallEventsBatch(c, l, t) },
      { table: 'message_tool_results', days: r.toolResultDays, run: (c, l, t) => this.repository.deleteExpiredToolResultsBatch(c, l, t) },
    ];
  }

  /**
   * Deletes a user of the admin's team and everything of theirs, in one transaction (R-RT-4). A
   * user of another team is NOT_FOUND; one already deleted (or never seen) reports zeros.
   */
  async deleteUserData(actor: ActorContext, userId: string): Promise<DeletionReport> {
    const team = await this.repository.userTeam(userId);
    if (team !== null && team !== actor.teamId) throw new NotFoundError('User', userId);
    const counts = team === null ? null : await this.repository.deleteUserCascade(actor.teamId, userId);
    return { userId, deleted: USER_DATA_TABLES.map((table) => ({ table, count: counts?.[table] ?? 0 })) };
  }

  /** On SIGTERM: a running sweep stops after its current batch and releases the lease. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.running?.catch(() => undefined);
  }
}
