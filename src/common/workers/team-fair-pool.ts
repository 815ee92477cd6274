import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { stepAsideFromAdmission } from '../../observability/request-context';
import { type ReleaseSlot, TeamFairSlots } from '../concurrency/team-fair-slots';
import type { PooledTask } from './pooled-task';

export interface TeamFairPoolLimits {
  /** Worker threads: tasks that run at once. */
  threads: number;
  /** Tasks that may wait for a thread; past it (or past a team's share) the busy answer. */
  queueMax: number;
  /** Longest wait for a thread before the busy answer. */
  queueWaitMs: number;
}

/** How a task ran on its thread: its answer, or terminated for outliving its budget. */
export type PoolRun<A> = { answer: A } | { terminated: true };

/**
 * The CPU budget of a task over `chars` characters of text (a token count, a payload's handle
 * fields): far above what such work takes (about 1.2 ms per 1,000 characters at the slowest
 * measured, ~60 ms for 2 MiB of JSON and summary rules at their row budget), so only a thread
 * gone wrong is terminated.
 */
export function textTaskBudgetMs(chars: number): number {
  return 2_000 + Math.ceil(chars / 500);
}

/** A thread idle this long exits; the next task starts another. */
const IDLE_THREAD_MS = 60_000;

/**
 * A fixed pool of worker threads (piscina) shared fairly between teams (R-TN-10): a caller first
 * takes a lease — a thread held for its team, granted in turns that go round the waiting teams, at
 * most half of threads plus queue for one team, within a deadline — and only then reads what the
 * task needs and runs it, so a document is never loaded by a caller that will be told "busy".
 * Every run has a CPU budget; a thread still busy past it is terminated and replaced.
 */
export class TeamFairPool<T, A> {
  private readonly pool: Piscina<PooledTask<T>, A>;
  private readonly slots: TeamFairSlots;

  constructor(
    worker: { filename: string; workerData?: unknown },
    private readonly limits: TeamFairPoolLimits,
    private readonly onOccupancy: (busyThreads: number, queued: number) => void = () => undefined,
  ) {
    this.slots = new TeamFairSlots(limits.threads, limits.queueMax);
    // Piscina never queues: a lease is granted only while a thread is free. Threads start on first
    // use and stay while in use, so a thread's start-up (its modules) is paid rarely.
    this.pool = new Piscina({ ...worker, minThreads: 0, maxThreads: limits.threads, idleTimeout: IDLE_THREAD_MS });
  }

  /** A thread for `team`, or null when busy (no room to wait, the team's share used, or the wait past its deadline). */
  async lease(team: string): Promise<PoolLease<T, A> | null> {
    let release = this.slots.tryAcquire(team);
    if (release === undefined) {
      stepAsideFromAdmission();
      const granted = this.slots.acquire(team, this.limits.queueWaitMs);
      this.report();
      release = await granted;
    }
    this.report();
    if (typeof release !== 'function') return null;
    return new PoolLease(this.pool, () => {
      release();
      this.report();
    });
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }

  private report(): void {
    this.onOccupancy(this.slots.busySlots, this.slots.queued);
  }
}

/** A thread held for one caller: run one task on it, then release it (in a `finally`). */
export class PoolLease<T, A> {
  private released = false;

  constructor(
    private readonly pool: Piscina<PooledTask<T>, A>,
    private readonly releaseSlot: ReleaseSlot,
  ) {}

  /** Runs `task`; a thread still busy `budgetMs` after it took the task is terminated. */
  async run(task: T, budgetMs: number): Promise<PoolRun<A>> {
    const backstop = new AbortController();
    const { port1: started, port2: startedInWorker } = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    started.once('message', () => {
      timer = setTimeout(() => backstop.abort(), budgetMs);
    });
    try {
      const answer = await this.pool.run({ task, started: startedInWorker }, { signal: backstop.signal, transferList: [startedInWorker] });
      return { answer };
    } catch (error) {
      // Piscina terminated the thread; the next task gets a fresh one.
      if (backstop.signal.aborted) return { terminated: true };
      throw error;
    } finally {
      clearTimeout(timer);
      started.close();
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.releaseSlot();
  }
}
