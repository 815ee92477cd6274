import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppError, ErrorCode } from '../../common/errors/app-error';
import { readJsonText } from '../../common/text/json-text';
import { COUNTING_TASK_CHARS, OFF_THREAD_FROM_CHARS } from '../../common/text/token-counter';
import { TeamFairPool, textTaskBudgetMs } from '../../common/workers/team-fair-pool';
import { workerModule } from '../../common/workers/worker-module';
import { WorkerPoolMetrics } from '../../common/workers/worker-pool.metrics';
import { AppConfig } from '../../config/app-config';
import { ruleRowVisitsAtMost } from '../summarizer/summarize-tool-result';
import { ToolResultMetrics } from '../tool-results.metrics';
import { type HandleFields, type HandleFieldsTask, handleFields } from './handle-fields';
import type { HandleWork } from './handle-work';
import { renderStub, type StubOptions } from './stub';
import type { StubSource } from './tool-result-handle';

/**
 * Row visits a batch's summary rules may cost on the event loop (summarizeOutput's measure):
 * about 2 ms of the slowest rows. A batch whose rules may cost more is read on a worker thread
 * even when its payloads are small.
 */
export const IN_PLACE_RULE_ROW_VISITS = 4_096;

/**
 * Stubs rendered where they are written: fitting one to its token budget tokenizes its lines a few
 * times, up to about a millisecond once the tokenizer's caches hold other words. More go to a thread.
 */
export const STUBS_IN_PLACE = 2;
/** Stubs a thread renders in one task (tens of milliseconds): another team's task waits behind one, not a batch. */
const STUBS_PER_TASK = 32;
/** A stub's fields are capped (R-LG-1): its rendering is bounded; a task's budget leaves room for a slow machine. */
const STUB_BUDGET_MS = 50;
const STUB_TASK_BASE_MS = 1_000;

/** A payload as the write path holds it: its output as received, its text, and the rules its summary may use. */
export interface FieldsSource extends HandleFieldsTask {
  output: unknown;
}

const POOL = 'handle';

/**
 * The handle fields of the payloads of a write, and then their stubs (R-TN-10, R-LG-1): a batch of less than 32,768
 * characters whose rules cost little is read in place; any other is read on worker threads, in
 * tasks of about 131,072 characters (a larger payload alone), one after another, each waiting its
 * team's turn on a thread shared fairly between teams (TeamFairPool). A team past its share of the
 * queue, a wait past HANDLE_QUEUE_WAIT_MS or a task past its CPU budget gets RATE_LIMITED.
 */
@Injectable()
export class HandleFieldsPool implements OnModuleDestroy {
  private readonly pool: TeamFairPool<HandleWork, HandleFields[] | string[]>;

  constructor(
    config: AppConfig,
    poolMetrics: WorkerPoolMetrics,
    private readonly metrics: ToolResultMetrics,
  ) {
    const { handleThreads, handleQueue, handleQueueWaitMs } = config.workers;
    this.pool = new TeamFairPool(
      workerModule(__dirname, __filename, 'handle-fields.worker'),
      { threads: handleThreads, queueMax: handleQueue, queueWaitMs: handleQueueWaitMs },
      poolMetrics.occupancy(POOL),
    );
  }

  /** Each payload's handle fields, for `team`, in order; a summary left to the generic summarizer by its row budget is counted. */
  async fieldsOf(team: string, sources: readonly FieldsSource[]): Promise<HandleFields[]> {
    const fields = inPlace(sources) ?? (await this.offThread(team, sources));
    for (const field of fields) if (field.summaryOverBudget) this.metrics.summaryRuleFallback('over_budget');
    return fields;
  }

  /** Each handle's stub (renderStub), for `team`, in order: a few in place, more on the pool's threads. */
  async stubsOf(team: string, handles: readonly StubSource[], options: StubOptions): Promise<string[]> {
    if (handles.length <= STUBS_IN_PLACE) return handles.map((handle) => renderStub(handle, options));
    const stubs: string[] = [];
    for (let start = 0; start < handles.length; start += STUBS_PER_TASK) {
      const task = { stubs: handles.slice(start, start + STUBS_PER_TASK), options };
      stubs.push(...((await this.run(team, task, STUB_TASK_BASE_MS + STUB_BUDGET_MS * task.stubs.length)) as string[]));
    }
    return stubs;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }

  private async offThread(team: string, sources: readonly FieldsSource[]): Promise<HandleFields[]> {
    const fields: HandleFields[] = [];
    // Tasks the size of the token count's: another team's payload waits behind one of them, not a whole batch.
    for (const group of inTasks(sources, COUNTING_TASK_CHARS)) {
      // Only what the thread reads is sent: the payload's text (serialized once, by the write), not its parsed output.
      const tasks = group.map(({ text, isText, rules }) => ({ text, isText, rules }));
      fields.push(...((await this.run(team, { fields: tasks }, textTaskBudgetMs(charsOf(tasks)))) as HandleFields[]));
    }
    return fields;
  }

  /** One task on a thread held for the team. */
  private async run(team: string, work: HandleWork, budgetMs: number): Promise<HandleFields[] | string[]> {
    const lease = await this.pool.lease(team);
    if (lease === null) throw busy();
    try {
      const run = await lease.run(work, budgetMs);
      if ('terminated' in run) throw busy();
      return run.answer;
    } finally {
      lease.release();
    }
  }
}

/** The fields read in place, or null when the batch is too large for the event loop (its payloads or its rules). */
function inPlace(sources: readonly FieldsSource[]): HandleFields[] | null {
  if (charsOf(sources) >= OFF_THREAD_FROM_CHARS) return null;
  const outputs = sources.map((source) => readJsonText(source.output));
  const ruleRows = sources.reduce((visits, source, index) => visits + ruleRowVisitsAtMost(source.rules, outputs[index]), 0);
  if (ruleRows > IN_PLACE_RULE_ROW_VISITS) return null;
  return sources.map((source, index) => handleFields(outputs[index], source, source.rules));
}

/** Consecutive payloads grouped into tasks of at most `taskChars` characters; a larger payload is a task of its own. */
function inTasks<T extends { text: string }>(sources: readonly T[], taskChars: number): T[][] {
  const tasks: T[][] = [];
  let open: T[] = [];
  let chars = 0;
  for (const source of sources) {
    if (open.length > 0 && chars + source.text.length > taskChars) {
      tasks.push(open);
      open = [];
      chars = 0;
    }
    open.push(source);
    chars += source.text.length;
  }
  if (open.length > 0) tasks.push(open);
  return tasks;
}

function charsOf(sources: readonly { text: string }[]): number {
  return sources.reduce((chars, source) => chars + source.text.length, 0);
}

function busy(): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, 'This replica is busy reading other large payloads; retry in a second.', {
    limit: 'HANDLE_QUEUE_MAX',
    retryAfterSeconds: 1,
  });
}
