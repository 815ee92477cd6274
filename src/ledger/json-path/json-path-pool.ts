import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Piscina } from 'piscina';
import { workerModule } from '../../common/workers/worker-module';
import { AppConfig } from '../../config/app-config';
import { currentRequestBudget } from '../../observability/request-context';
import type { LineSearchAnswer, LineSearchTask } from '../pattern/line-search';
import { JsonPathMetrics, type LibraryOutcome, type PatternOutcome, type PoolOutcome } from './json-path.metrics';
import type { LibraryAnswer, LibraryTask } from './library-evaluation';
import { TeamFairSlots } from './team-fair-slots';

/**
 * After the worker's own `vm` timeout (the first line, which answers cleanly), how much longer a
 * thread may stay busy before it is terminated: JSON.parse of the payload and the answer's
 * JSON.stringify (or a search's list of lines) run outside that timeout.
 */
const BACKSTOP_MARGIN_MS = 500;

/** A thread idle this long exits; the next evaluation starts another. */
const IDLE_THREAD_MS = 60_000;

/** The work a thread does: a JSONPath library evaluation, or a pattern search over lines. */
type PoolTask = ({ kind: 'json_path' } & LibraryTask) | ({ kind: 'pattern' } & LineSearchTask);

/** A task as a thread receives it: with the port it says "started" on. */
export type PooledTask = PoolTask & { started: MessagePort };

/** What the pool answers: the task's answer, or why it did not run. */
export type PoolAnswer<A = LibraryAnswer> = A | { busy: true } | { overRequestBudget: number };

/**
 * The JSONPath library's evaluations and pattern searches over lines, off the event loop
 * (R-TN-10, R-LG-2): a fixed pool of worker threads, a bounded queue with a deadline, a per-team
 * share of both, a per-request count, and a CPU budget that terminates a thread that outlives its
 * task's own timeout. Both kinds of task share threads, queue, shares and count.
 */
@Injectable()
export class JsonPathPool implements OnModuleDestroy {
  private readonly pool: Piscina<PooledTask, LibraryAnswer | LineSearchAnswer>;
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

  /** Evaluates one JSONPath task for a team, or says why not; counts against the current HTTP request. */
  evaluate(team: string, task: LibraryTask): Promise<PoolAnswer> {
    return this.run(team, { kind: 'json_path', ...task }, libraryOutcomeOf, (outcome) => this.metrics.evaluated(outcome));
  }

  /** Searches lines for a pattern for a team, or says why not; counts against the current HTTP request. */
  searchLines(team: string, task: LineSearchTask): Promise<PoolAnswer<LineSearchAnswer>> {
    return this.run(team, { kind: 'pattern', ...task }, patternOutcomeOf, (outcome) => this.metrics.searched(outcome));
  }

  /** Runs one task for a team, or says why not, and reports how it ended. */
  private async run<A extends object, O extends string>(
    team: string,
    task: PoolTask,
    outcomeOf: (answer: A) => O,
    report: (outcome: O | PoolOutcome) => void,
  ): Promise<PoolAnswer<A | { timedOut: true }>> {
    const budget = currentRequestBudget();
    if (budget !== undefined) {
      if (budget.libraryEvaluations >= this.limits.evaluationsPerRequest) {
        report('over_request_budget');
        return { overRequestBudget: this.limits.evaluationsPerRequest };
      }
      budget.libraryEvaluations++;
    }
    const slot = this.slots.acquire(team, this.limits.queueWaitMs);
    this.reportOccupancy();
    const release = await slot;
    this.reportOccupancy();
    if (release === null) {
      report('busy');
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
      // The thread answers the kind of task it was given (json-path.worker.ts).
      const answer = (await this.pool.run(
        { ...task, started: startedInWorker },
        { signal: backstop.signal, transferList: [startedInWorker] },
      )) as A;
      report(outcomeOf(answer));
      return answer;
    } catch (error) {
      if (backstop.signal.aborted) {
        // Piscina terminated the thread; the next task gets a fresh one.
        report('terminated');
        return { timedOut: true };
      }
      report('error');
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

function libraryOutcomeOf(answer: LibraryAnswer): LibraryOutcome {
  if ('tooMany' in answer) return 'too_many';
  if ('timedOut' in answer) return 'timed_out';
  return 'ok';
}

function patternOutcomeOf(answer: LineSearchAnswer): PatternOutcome {
  if ('problem' in answer) return 'bad_pattern';
  if ('timedOut' in answer) return 'timed_out';
  return 'ok';
}
