import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Piscina } from 'piscina';
import { workerModule } from '../../common/workers/worker-module';
import { AppConfig } from '../../config/app-config';
import { currentRequestBudget } from '../../observability/request-context';
import { JsonPathMetrics, type LibraryOutcome } from './json-path.metrics';
import type { LibraryAnswer, LibraryTask } from './library-evaluation';
import { TeamFairSlots } from './team-fair-slots';

/**
 * After the worker's own `vm` timeout (the first line, which answers cleanly), how much longer a
 * thread may stay busy before it is terminated: JSON.parse of the payload and the answer's
 * JSON.stringify run outside that timeout.
 */
const BACKSTOP_MARGIN_MS = 500;

/** A thread idle this long exits; the next evaluation starts another. */
const IDLE_THREAD_MS = 60_000;

/** A task as a thread receives it: with the port it says "started" on. */
export type PooledTask = LibraryTask & { started: MessagePort };

/** What the pool answers: the evaluation's answer, or why it did not run. */
export type PoolAnswer = LibraryAnswer | { busy: true } | { overRequestBudget: number };

/**
 * The JSONPath library's evaluations, off the event loop (R-TN-10): a fixed pool of worker
 * threads, a bounded queue with a deadline, a per-team share of both, a per-request count, and a
 * CPU budget that terminates a thread that outlives its evaluation's own timeout.
 */
@Injectable()
export class JsonPathPool implements OnModuleDestroy {
  private readonly pool: Piscina<PooledTask, LibraryAnswer>;
  private readonly slots: TeamFairSlots;
  private readonly limits: AppConfig['lookup']['library'];

  constructor(
    config: AppConfig,
    private readonly metrics: JsonPathMetrics,
  ) {
    this.limits = config.lookup.library;
    const { workers, queueMax } = this.limits;
    this.slots = new TeamFairSlots(workers, queueMax);
    // Threads start on first use and stay while in use: a thread's start-up (its modules) is paid rarely.
    this.pool = new Piscina({
      ...workerModule(__dirname, __filename, 'json-path.worker'),
      minThreads: 0,
      maxThreads: workers,
      idleTimeout: IDLE_THREAD_MS,
    });
  }

  /** Evaluates one task for a team, or says why not; counts against the current HTTP request. */
  async evaluate(team: string, task: LibraryTask): Promise<PoolAnswer> {
    const budget = currentRequestBudget();
    if (budget !== undefined) {
      if (budget.libraryEvaluations >= this.limits.evaluationsPerRequest) {
        this.metrics.evaluated('over_request_budget');
        return { overRequestBudget: this.limits.evaluationsPerRequest };
      }
      budget.libraryEvaluations++;
    }
    const slot = this.slots.acquire(team, this.limits.queueWaitMs);
    this.reportOccupancy();
    const release = await slot;
    this.reportOccupancy();
    if (release === null) {
      this.metrics.evaluated('busy');
      return { busy: true };
    }
    const backstop = new AbortController();
    // The budget counts from the moment the thread takes the task, not from a thread's start-up.
    const { port1: started, port2: startedInWorker } = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    started.once('message', () => {
      timer = setTimeout(() => backstop.abort(), task.timeoutMs + BACKSTOP_MARGIN_MS);
    });
    try {
      const answer = await this.pool.run(
        { ...task, started: startedInWorker },
        { signal: backstop.signal, transferList: [startedInWorker] },
      );
      this.metrics.evaluated(outcomeOf(answer));
      return answer;
    } catch (error) {
      if (backstop.signal.aborted) {
        // Piscina terminated the thread; the next task gets a fresh one.
        this.metrics.evaluated('terminated');
        return { timedOut: true };
      }
      this.metrics.evaluated('error');
      throw error;
    } finally {
      clearTimeout(timer);
      started.close();
      release();
      this.reportOccupancy();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }

  private reportOccupancy(): void {
    this.metrics.occupancy(this.slots.busySlots, this.slots.queued);
  }
}

function outcomeOf(answer: LibraryAnswer): LibraryOutcome {
  if ('tooMany' in answer) return 'too_many';
  if ('timedOut' in answer) return 'timed_out';
  return 'ok';
}
