import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../common/errors/app-error';
import { AppConfig } from '../config/app-config';
import { inTransactionWithTimeout } from '../database/run-sql';
import { FeedbackService } from '../feedback';
import { type RecallEventPosition, RecallEventService } from '../recall-events';
import { type ActorContext, UserService } from '../tenancy';
import { ToolResultsService } from '../tool-results';
import { RetentionMetrics, type SweptTable } from './retention.metrics';
import { RetentionRepository, SWEEP_LEASE } from './retention.repository';

const DAY_MS = 86_400_000;

interface TableCount {
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

/** Rows a user's deletion removes, by table (R-RT-4), in the order the report lists them. */
const USER_DATA_TABLES = [
  'conversations',
  'messages',
  'message_tool_results',
  'recall_events',
  'feedback_events',
  'space_members',
  'users',
] as const;
type UserDataTable = (typeof USER_DATA_TABLES)[number];

/** One batch of a step: the rows it changed, and how many it looked at (fewer than the batch size: the step is done). */
interface BatchOutcome {
  changed: number;
  scanned: number;
}

type Step = { table: SweptTable; days: number; batch: (cutoff: Date, limit: number) => Promise<BatchOutcome> };

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
    private readonly toolResults: ToolResultsService,
    private readonly recallEvents: RecallEventService,
    private readonly feedback: FeedbackService,
    private readonly users: UserService,
    private readonly em: EntityManager,
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
          // Each batch is a short transaction of its own with its own statement timeout.
          const { changed, scanned } = await inTransactionWithTimeout(this.em, statementTimeoutMs, () => step.batch(cutoff, batchSize));
          count += changed;
          this.metrics.swept(step.table, changed);
          if (scanned < batchSize || this.stopping) break;
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
    this.logger.log({
      msg: 'retention sweep done',
      deleted: Object.fromEntries(deleted.map((d) => [d.table, d.count])),
      durationMs: report.durationMs,
    });
    return report;
  }

  /**
   * Comments first: a feedback event past both bounds is deleted, not cleared and then deleted.
   * Each module deletes from its own tables, oldest rows first through their age index, so an
   * interrupted sweep resumes where it stopped.
   */
  private steps(): Step[] {
    const r = this.config.retention;
    const counted = (changed: number): BatchOutcome => ({ changed, scanned: changed });
    return [
      { table: 'feedback_events', days: r.feedbackEventDays, batch: async (c, l) => counted(await this.feedback.deleteExpiredBatch(c, l)) },
      {
        table: 'feedback_comments',
        days: r.feedbackCommentDays,
        batch: async (c, l) => counted(await this.feedback.clearExpiredCommentsBatch(c, l)),
      },
      { table: 'recall_events', days: r.recallEventDays, batch: this.recallEventBatches() },
      {
        table: 'message_tool_results',
        days: r.toolResultDays,
        batch: async (c, l) => counted(await this.toolResults.deleteExpiredBatch(c, l)),
      },
    ];
  }

  /**
   * Recall events past the cutoff that no feedback event refers to (those stay, R-RT-3). The
   * batch locks the oldest expired events, asks Feedback which of them it refers to, and deletes
   * the rest; the scan goes on after the last one looked at, so the kept ones are passed once.
   */
  private recallEventBatches(): Step['batch'] {
    let after: RecallEventPosition | null = null;
    return async (cutoff, limit) => {
      const expired = await this.recallEvents.lockExpired(cutoff, after, limit);
      const referenced = await this.feedback.findReferencedRecallEvents(expired);
      const changed = await this.recallEvents.deleteEvents(expired.filter((e) => !referenced.has(`${e.teamId}:${e.id}`)));
      after = expired.at(-1) ?? after;
      return { changed, scanned: expired.length };
    };
  }

  /**
   * Deletes a user of the admin's team and everything of theirs, in one transaction (R-RT-4). A
   * user of another team is NOT_FOUND; one already deleted (or never seen) reports zeros. The
   * user is locked first, so nothing of theirs can be added meanwhile and every count is exact;
   * each module then deletes its own rows, from the top of the module line down.
   */
  async deleteUserData(actor: ActorContext, userId: string): Promise<DeletionReport> {
    const team = await this.users.findTeam(userId);
    if (team !== null && team !== actor.teamId) throw new NotFoundError('User', userId);
    const counts = team === null ? null : await this.em.transactional(() => this.deleteUserRows(actor.teamId, userId));
    return { userId, deleted: USER_DATA_TABLES.map((table) => ({ table, count: counts?.[table] ?? 0 })) };
  }

  private async deleteUserRows(teamId: string, userId: string): Promise<Record<UserDataTable, number> | null> {
    if (!(await this.users.lockInTeam(teamId, userId))) return null;
    const feedbackEvents = await this.feedback.deleteAllOfUser(userId);
    const recallEvents = await this.recallEvents.deleteAllOfUser(userId);
    const toolResults = await this.toolResults.deleteAllOfUser(userId);
    const tenancy = await this.users.deleteInTeam(teamId, userId);
    return { ...toolResults, recall_events: recallEvents, feedback_events: feedbackEvents, ...tenancy };
  }

  /** On SIGTERM: a running sweep stops after its current batch and releases the lease. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.running?.catch(() => undefined);
  }
}
