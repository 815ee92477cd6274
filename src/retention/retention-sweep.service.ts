import { setTimeout } from 'node:timers/promises';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { withTenantScope } from '../database/tenant-scope';
import { UnitOfWork } from '../database/unit-of-work';
import { FeedbackService } from '../feedback';
import { type RecallEventPosition, RecallEventService } from '../recall-events';
import { TeamService, UserService } from '../tenancy';
import { type ConversationPosition, ToolResultDeletions } from '../tool-results';
import { RetentionMetrics, SWEPT_TABLES, type SweptTable } from './retention.metrics';
import { SWEEP_LEASE, teamLease } from './retention.repository';
import { type KeepLeases, SweepLeases } from './sweep-leases';
import { inSpan, SPAN_ATTRIBUTES } from '../observability/tracing';

const DAY_MS = 86_400_000;

export interface TableCount {
  table: string;
  count: number;
}

export interface RetentionReport {
  /** True when another sweep held the lease (the scheduler's, or another of the same team's). */
  skipped: boolean;
  deleted: TableCount[];
  durationMs: number;
}

type SweptCounts = Record<SweptTable, number>;

/** One batch of a step: the rows it changed, by table, and how many it looked at (fewer than the batch size: the step is done). */
interface BatchOutcome {
  changed: Partial<SweptCounts>;
  scanned: number;
}

type Step = { days: number; batch: (cutoff: Date, limit: number) => Promise<BatchOutcome> };

/** What one team's sweep did; `leaseLost`: another sweeper took a lease over and this one stopped. */
interface TeamSweep {
  counts: SweptCounts;
  leaseLost: boolean;
}

const zeroCounts = (): SweptCounts => Object.fromEntries(SWEPT_TABLES.map((table) => [table, 0])) as SweptCounts;

/**
 * Forgetting on schedule (R-RT-1..3, R-RT-5) and on an admin's request (R-RT-6), one team at a
 * time: `sweepTeam` deletes one team's expired rows and reports only them (a team admin's
 * `runRetentionSweep`, R-TN-6); `sweep`, the scheduler's, runs that same path for every team in
 * turn under the global lease, so one replica walks the teams at a time (R-RT-2).
 */
@Injectable()
export class RetentionSweepService implements OnApplicationShutdown {
  private readonly logger = new Logger(RetentionSweepService.name);
  private readonly running = new Set<Promise<RetentionReport>>();
  private stopping = false;

  constructor(
    private readonly leases: SweepLeases,
    private readonly unitOfWork: UnitOfWork,
    private readonly toolResultDeletions: ToolResultDeletions,
    private readonly recallEvents: RecallEventService,
    private readonly feedback: FeedbackService,
    private readonly teams: TeamService,
    private readonly users: UserService,
    private readonly config: AppConfig,
    private readonly metrics: RetentionMetrics,
  ) {}

  /** The scheduler's sweep: every team's, one after another; skipped while another replica sweeps. */
  sweep(now = new Date()): Promise<RetentionReport> {
    return this.track(inSpan('retention.sweep', {}, () => this.sweepEveryTeam(now)));
  }

  /** One team's sweep: its expired rows only, counted; skipped while the scheduler or another call sweeps that team. */
  sweepTeam(teamId: string, now = new Date()): Promise<RetentionReport> {
    return this.track(inSpan('retention.sweep', { [SPAN_ATTRIBUTES.teamId]: teamId }, () => this.sweepOneTeam(teamId, now)));
  }

  private track(sweep: Promise<RetentionReport>): Promise<RetentionReport> {
    this.running.add(sweep);
    return sweep.finally(() => this.running.delete(sweep));
  }

  private async sweepEveryTeam(now: Date): Promise<RetentionReport> {
    const started = Date.now();
    const holder = this.leases.newHolder();
    if (!(await this.leases.acquire(SWEEP_LEASE, holder))) {
      this.logger.log({ msg: 'retention sweep skipped: another replica holds the sweep lease' });
      return { skipped: true, deleted: [], durationMs: Date.now() - started };
    }
    const counts = zeroCounts();
    let leaseLost = false;
    const keepLeases = this.leases.keeperFor(holder);
    try {
      for (const teamId of await this.teams.listAllIds()) {
        // null: the team's own sweep is running, and sweeps it.
        const team = await this.sweepLeasedTeam(teamId, now, holder, [SWEEP_LEASE], keepLeases);
        for (const table of SWEPT_TABLES) counts[table] += team?.counts[table] ?? 0;
        // Between teams too: a long walk through small teams keeps the lease, or stops once another replica took it over.
        leaseLost = (team?.leaseLost ?? false) || !(await keepLeases([SWEEP_LEASE]));
        if (leaseLost || this.stopping) break;
      }
      if (leaseLost) this.logger.warn({ msg: 'retention sweep stopped: another replica took the sweep lease over' });
    } finally {
      await this.leases.release(SWEEP_LEASE, holder);
    }
    return this.report(counts, started, null);
  }

  private async sweepOneTeam(teamId: string, now: Date): Promise<RetentionReport> {
    const started = Date.now();
    const holder = this.leases.newHolder();
    const team = await this.sweepLeasedTeam(teamId, now, holder, [], this.leases.keeperFor(holder));
    if (team === null) {
      this.logger.log({ msg: 'retention sweep skipped: another sweep holds the team lease', teamId });
      return { skipped: true, deleted: [], durationMs: Date.now() - started };
    }
    if (team.leaseLost) this.logger.warn({ msg: 'retention sweep stopped: another sweep took the team lease over', teamId });
    return this.report(team.counts, started, teamId);
  }

  /** The team's sweep under its lease, the caller's leases (`held`) kept along with it; null when the team lease is taken. */
  private async sweepLeasedTeam(
    teamId: string,
    now: Date,
    holder: string,
    held: readonly string[],
    keepLeases: KeepLeases,
  ): Promise<TeamSweep | null> {
    const lease = teamLease(teamId);
    if (!(await this.leases.acquire(lease, holder))) return null;
    try {
      // Team-wide (no user): under row-level security the team's pass sees the team's rows only.
      return await withTenantScope({ teamId }, () => this.sweepTeamRows(teamId, now, keepLeases, [...held, lease]));
    } finally {
      await this.leases.release(lease, holder);
    }
  }

  /** The one path that deletes: each step of one team, in bounded batches, each batch a short transaction of its own. */
  private async sweepTeamRows(teamId: string, now: Date, keepLeases: KeepLeases, leases: readonly string[]): Promise<TeamSweep> {
    const { batchSize, statementTimeoutMs, batchPauseMs } = this.config.retention;
    const counts = zeroCounts();
    for (const step of this.steps(teamId)) {
      const cutoff = new Date(now.getTime() - step.days * DAY_MS);
      for (;;) {
        // Each batch is a short transaction of its own with its own statement timeout.
        const { changed, scanned } = await inSpan('retention.batch', { [SPAN_ATTRIBUTES.teamId]: teamId }, async (span) => {
          const done = await this.unitOfWork.runWithTimeout(statementTimeoutMs, () => step.batch(cutoff, batchSize));
          span.setAttribute(
            SPAN_ATTRIBUTES.rows,
            Object.values(done.changed).reduce((sum, rows) => sum + rows, 0),
          );
          return done;
        });
        for (const [table, rows] of Object.entries(changed) as [SweptTable, number][]) {
          counts[table] += rows;
          this.metrics.swept(table, rows);
        }
        if (scanned < batchSize || this.stopping) break;
        // Between batches: keep the leases, or stop the whole sweep if another sweeper took one over.
        if (!(await keepLeases(leases))) return { counts, leaseLost: true };
        if (batchPauseMs > 0) await setTimeout(batchPauseMs);
      }
      if (this.stopping) break;
    }
    return { counts, leaseLost: false };
  }

  private report(counts: SweptCounts, started: number, teamId: string | null): RetentionReport {
    const report = {
      skipped: false,
      deleted: SWEPT_TABLES.map((table) => ({ table, count: counts[table] })),
      durationMs: Date.now() - started,
    };
    this.logger.log({ msg: 'retention sweep done', teamId: teamId ?? 'all', deleted: counts, durationMs: report.durationMs });
    return report;
  }

  /**
   * One team's steps. Comments first: a feedback event past both bounds is deleted, not cleared
   * and then deleted. Conversations last: their snapshots went just before. Each module deletes
   * from its own tables, oldest rows first through a (team, age) index, so an interrupted sweep
   * resumes where it stopped.
   */
  private steps(teamId: string): Step[] {
    const r = this.config.retention;
    const counted = (table: SweptTable, changed: number): BatchOutcome => ({ changed: { [table]: changed }, scanned: changed });
    return [
      {
        days: r.feedbackEventDays,
        batch: async (c, l) => counted('feedback_events', await this.feedback.deleteExpiredBatch(teamId, c, l)),
      },
      {
        days: r.feedbackCommentDays,
        batch: async (c, l) => counted('feedback_comments', await this.feedback.clearExpiredCommentsBatch(teamId, c, l)),
      },
      { days: r.recallEventDays, batch: this.recallEventBatches(teamId) },
      {
        days: r.toolResultDays,
        batch: async (c, l) => counted('message_tool_results', await this.toolResultDeletions.deleteExpiredBatch(teamId, c, l)),
      },
      { days: r.toolResultDays, batch: this.idleConversationBatches(teamId) },
      {
        // Deleted users' tombstones, once no token issued before the deletion can be accepted any more (not user data: not reported).
        days: this.config.auth.tokenMaxAgeSeconds / 86_400,
        batch: async (c, l) => ({ changed: {}, scanned: await this.users.deleteTombstonesBefore(teamId, c, l) }),
      },
    ];
  }

  /**
   * The team's recall events past the cutoff that no feedback event refers to (those stay,
   * R-RT-3). The batch locks the oldest expired events, asks Feedback which of them it refers to,
   * and deletes the rest; the scan goes on after the last one looked at, so the kept ones are
   * passed once.
   */
  private recallEventBatches(teamId: string): Step['batch'] {
    let after: RecallEventPosition | null = null;
    return async (cutoff, limit) => {
      const expired = await this.recallEvents.lockExpired(teamId, cutoff, after, limit);
      const referenced = await this.feedback.findReferencedRecallEvents(
        teamId,
        expired.map((e) => e.id),
      );
      const changed = await this.recallEvents.deleteEvents(
        teamId,
        expired.filter((e) => !referenced.has(e.id)).map((e) => e.id),
      );
      after = expired.at(-1) ?? after;
      return { changed: { recall_events: changed }, scanned: expired.length };
    };
  }

  /**
   * The team's conversations with no snapshot left and no activity since the snapshots' cutoff
   * (created before it, no message since), with their messages. The team reaches them through its
   * spaces, every status included; the scan goes on after the last one looked at.
   */
  private idleConversationBatches(teamId: string): Step['batch'] {
    let spaceIds: string[] | null = null;
    let after: ConversationPosition | null = null;
    return async (cutoff, limit) => {
      spaceIds ??= await this.teams.spaceIdsOf(teamId);
      const batch = await this.toolResultDeletions.deleteIdleConversationsBatch(teamId, spaceIds, cutoff, after, limit);
      after = batch.last;
      return { changed: { conversations: batch.conversations, messages: batch.messages }, scanned: batch.scanned };
    };
  }

  /** On SIGTERM: a running sweep stops after its current batch and releases the lease. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }
}
