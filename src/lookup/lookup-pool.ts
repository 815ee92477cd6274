import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { TeamFairPool, textTaskBudgetMs } from '../common/workers/team-fair-pool';
import { workerModule } from '../common/workers/worker-module';
import { AppConfig } from '../config/app-config';
import { currentRequestBudget } from '../observability/request-context';
import type { LineSearchAnswer, LineSearchTask } from './pattern/line-search';
import type { SubstringSearchAnswer, SubstringSearchTask } from './substring/substring-search';
import {
  JsonPathMetrics,
  type LibraryOutcome,
  type PatternOutcome,
  type PoolOutcome,
  type SubstringOutcome,
} from './json-path/json-path.metrics';
import type { LibraryAnswer, LibraryTask } from './json-path/library-evaluation';

/**
 * After the worker's own `vm` timeout (the first line, which answers cleanly), how much longer a
 * thread may stay busy before it is terminated: JSON.parse of the payload and the answer's
 * JSON.stringify (or a search's list of lines) run outside that timeout.
 */
const BACKSTOP_MARGIN_MS = 500;

/** A stored payload's JSON text, to be read as the text a lookup serves (payloadTextOfJson). */
interface PayloadTextTask {
  json: string;
  timeoutMs: number;
}

/** The work a thread does: a JSONPath library evaluation, a pattern search over lines, a substring search, or a payload's text. */
export type LookupTask =
  | ({ kind: 'json_path' } & LibraryTask)
  | ({ kind: 'pattern' } & LineSearchTask)
  | ({ kind: 'substring' } & SubstringSearchTask)
  | ({ kind: 'payload_text' } & PayloadTextTask);

/** What a thread answers, by the kind of its task. */
export type LookupAnswer = LibraryAnswer | LineSearchAnswer | SubstringSearchAnswer | { text: string };

/** A large stored payload's text, or why there is none: no thread in time, stopped, or the row gone meanwhile. */
export type PayloadTextAnswer = { text: string } | { busy: true } | { timedOut: true } | { missing: true };

/** What the pool answers: the task's answer, or why it did not run (or was stopped). */
export type PoolAnswer<A = LibraryAnswer> = A | { busy: true } | { overRequestBudget: number } | { timedOut: true };

/**
 * What the caller prepares once a thread is held for it (the document is read then, not before):
 * the task, or a text that answers without the thread (not found, over the payload budget).
 */
type Prepare<T> = () => Promise<T | string>;

/**
 * The lookups whose work grows with a payload, off the event loop (R-TN-10, R-LG-2): the JSONPath
 * library's evaluations, pattern searches over lines, substring searches of large payloads and
 * the texts of large stored payloads (payloadText). A
 * team-fair pool of worker threads with a bounded queue and a deadline, a per-request count, and
 * a CPU budget that terminates a thread that outlives its task's own timeout. The three kinds of
 * task share threads, queue, shares and count.
 */
@Injectable()
export class LookupPool implements OnModuleDestroy {
  private readonly pool: TeamFairPool<LookupTask, LookupAnswer>;
  private readonly evaluationsPerRequest: number;

  constructor(
    config: AppConfig,
    private readonly metrics: JsonPathMetrics,
  ) {
    const { workers, queueMax, queueWaitMs, evaluationsPerRequest } = config.lookup.library;
    this.evaluationsPerRequest = evaluationsPerRequest;
    this.pool = new TeamFairPool(
      workerModule(__dirname, __filename, 'lookup.worker'),
      { threads: workers, queueMax, queueWaitMs },
      (busy, queued) => metrics.occupancy(busy, queued),
    );
  }

  /** Evaluates one JSONPath task for a team, or says why not; counts against the current HTTP request. */
  evaluate(team: string, prepare: Prepare<LibraryTask>): Promise<PoolAnswer | string> {
    const task = async () => kindOf('json_path' as const, await prepare());
    return this.run(team, task, libraryOutcomeOf, (outcome) => this.metrics.evaluated(outcome));
  }

  /** Searches lines for a pattern for a team, or says why not; counts against the current HTTP request. */
  searchLines(team: string, prepare: Prepare<LineSearchTask>): Promise<PoolAnswer<LineSearchAnswer> | string> {
    const task = async () => kindOf('pattern' as const, await prepare());
    return this.run(team, task, patternOutcomeOf, (outcome) => this.metrics.searched(outcome));
  }

  /** Searches a payload for a substring for a team, or says why not; counts against the current HTTP request. */
  searchText(team: string, prepare: Prepare<SubstringSearchTask>): Promise<PoolAnswer<SubstringSearchAnswer> | string> {
    const task = async () => kindOf('substring' as const, await prepare());
    return this.run(team, task, substringOutcomeOf, (outcome) => this.metrics.searchedText(outcome));
  }

  /**
   * The text a lookup serves of a large stored payload, read from its JSON text on a thread held
   * for the team: parsing 2 MiB of small objects and serializing them again holds a thread for a
   * few hundred milliseconds. `read` fetches the document once the thread is held (null: gone
   * meanwhile). Not counted against the request's evaluations: the request's payload budget bounds
   * how much it reads. `busy`: no thread for the team in time, and nothing was read.
   */
  async payloadText(team: string, read: () => Promise<string | null>): Promise<PayloadTextAnswer> {
    const lease = await this.pool.lease(team);
    if (lease === null) {
      this.metrics.readPayloadText('busy');
      return { busy: true };
    }
    try {
      const json = await read();
      if (json === null) return { missing: true };
      const timeoutMs = textTaskBudgetMs(json.length);
      const run = await lease.run({ kind: 'payload_text', json, timeoutMs }, timeoutMs);
      this.metrics.readPayloadText('terminated' in run ? 'terminated' : 'ok');
      return 'terminated' in run ? { timedOut: true } : (run.answer as { text: string });
    } catch (error) {
      this.metrics.readPayloadText('error');
      throw error;
    } finally {
      lease.release();
    }
  }

  /** Runs one task for a team, or says why not, and reports how it ended. */
  private async run<A extends object, O extends string>(
    team: string,
    prepare: Prepare<LookupTask>,
    outcomeOf: (answer: A) => O,
    report: (outcome: O | PoolOutcome) => void,
  ): Promise<PoolAnswer<A> | string> {
    const budget = currentRequestBudget();
    if (budget !== undefined) {
      if (budget.libraryEvaluations >= this.evaluationsPerRequest) {
        report('over_request_budget');
        return { overRequestBudget: this.evaluationsPerRequest };
      }
      budget.libraryEvaluations++;
    }
    const lease = await this.pool.lease(team);
    if (lease === null) {
      report('busy');
      return { busy: true };
    }
    try {
      const task = await prepare();
      if (typeof task === 'string') return task;
      // The thread answers the kind of task it was given (lookup.worker.ts).
      const run = await lease.run(task, task.timeoutMs + BACKSTOP_MARGIN_MS);
      if ('terminated' in run) {
        report('terminated');
        return { timedOut: true };
      }
      const answer = run.answer as A;
      report(outcomeOf(answer));
      return answer;
    } catch (error) {
      report('error');
      throw error;
    } finally {
      lease.release();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}

/** The task marked with its kind, or the text that answers without it. */
function kindOf<K extends LookupTask['kind'], T>(kind: K, task: T | string): ({ kind: K } & T) | string {
  return typeof task === 'string' ? task : { kind, ...task };
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

function substringOutcomeOf(answer: SubstringSearchAnswer): SubstringOutcome {
  return 'timedOut' in answer ? 'timed_out' : 'ok';
}
