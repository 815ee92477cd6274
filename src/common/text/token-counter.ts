import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { LoopTurns } from '../concurrency/loop-turns';
import { AppError, ErrorCode } from '../errors/app-error';
import { TeamFairPool, textTaskBudgetMs } from '../workers/team-fair-pool';
import { workerModule } from '../workers/worker-module';
import { WorkerPoolMetrics } from '../workers/worker-pool.metrics';
import { countingTasks } from './counting-tasks';
import {
  cacheKey,
  type CountedJson,
  type CountedText,
  countedTexts,
  jsonArrayChars,
  knownCountsOf,
  serializedOf,
  sum,
} from './json-array-tokens';
import { countTokens } from './tokenizer';

/** Below this many characters a text is counted where it is: a worker's round trip would cost more (~2 ms of counting). */
export const OFF_THREAD_FROM_CHARS = 32_768;

/**
 * Large texts are counted in tasks of about this many characters (~20 ms of JSON, ~150 ms of the
 * slowest text measured), one after another: between two of them the thread goes to the next team
 * in turn, so a team's count waits behind at most one task of each other team, not their payloads.
 */
export const COUNTING_TASK_CHARS = 131_072;

const POOL = 'token_count';

/**
 * Token counts of large texts, off the main thread (R-TN-10): tokenizing a megabyte of JSON takes
 * a tenth of a second or more of CPU, during which the event loop would answer no one. Small texts
 * are counted in place. The threads are shared fairly between teams (TeamFairPool): a call counts
 * its tasks one at a time, each waiting its team's turn; a team past its share of the queue, or a
 * wait past TOKEN_COUNT_QUEUE_WAIT_MS, gets RATE_LIMITED.
 */
@Injectable()
export class TokenCounter implements OnModuleDestroy {
  private readonly pool: TeamFairPool<string[], number[]>;

  constructor(config: AppConfig, poolMetrics: WorkerPoolMetrics) {
    const { tokenCountThreads, tokenCountQueue, tokenCountQueueWaitMs } = config.workers;
    this.pool = new TeamFairPool(
      workerModule(__dirname, __filename, 'token-count.worker'),
      { threads: tokenCountThreads, queueMax: tokenCountQueue, queueWaitMs: tokenCountQueueWaitMs },
      poolMetrics.occupancy(POOL),
    );
  }

  /** countTokens of `text`, for `team`. */
  async count(team: string, text: string): Promise<number> {
    return (await this.countEach(team, [text]))[0];
  }

  /** countTokens of each text, for `team`. */
  async countEach(team: string, texts: readonly string[]): Promise<number[]> {
    if (texts.reduce((chars, text) => chars + text.length, 0) < OFF_THREAD_FROM_CHARS) return texts.map(countTokens);
    const counts = texts.map(() => 0);
    for (const task of countingTasks(texts, COUNTING_TASK_CHARS)) {
      const counted = await this.run(team, task.texts, task.chars);
      task.owners.forEach((owner, index) => (counts[owner] += counted[index]));
    }
    return counts;
  }

  /**
   * `countTokens` of each text, the counts of pieces seen lately reused: only the others are
   * tokenized (off the main thread when they are large), so a history resent every turn costs the
   * hashing of its old messages and the counting of its new ones.
   */
  async countCached(team: string, texts: readonly CountedText[]): Promise<number[]> {
    // A history's messages are hashed a slice at a time: 10 MB of them is 200 ms of hashing.
    const keys: (string | null)[] = [];
    const turns = new LoopTurns();
    for (const text of texts) {
      keys.push(cacheKey(text));
      await turns.after(text.text.length);
    }
    const { counts, remember } = knownCountsOf(keys);
    const missing = counts.flatMap((known, index) => (known === undefined ? [index] : []));
    if (missing.length === 0) return counts as number[];
    const counted = await this.countEach(
      team,
      missing.map((index) => texts[index].text),
    );
    missing.forEach((index, order) => {
      counts[index] = counted[order];
      remember(index, counted[order]);
    });
    return counts as number[];
  }

  /** `JSON.stringify(items)`'s length and its exact token count (json-array-tokens' countJsonArray). */
  async countJsonArray(team: string, items: readonly object[], serialized: WeakMap<object, string>): Promise<CountedJson> {
    // Serialized a slice at a time, as they are hashed: the event loop turns between slices.
    const parts: string[] = [];
    const turns = new LoopTurns();
    for (const item of items) {
      const part = serializedOf(item, serialized);
      parts.push(part);
      await turns.after(part.length);
    }
    return { chars: jsonArrayChars(parts), tokens: sum(await this.countCached(team, countedTexts(parts))) };
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }

  /** One task on a thread held for the team. */
  private async run(team: string, texts: string[], chars: number): Promise<number[]> {
    const lease = await this.pool.lease(team);
    if (lease === null) throw busy();
    try {
      const run = await lease.run(texts, textTaskBudgetMs(chars));
      if ('terminated' in run) throw busy();
      return run.answer;
    } finally {
      lease.release();
    }
  }
}

function busy(): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, 'This replica is busy counting the tokens of other large payloads; retry in a second.', {
    limit: 'TOKEN_COUNT_QUEUE_MAX',
    retryAfterSeconds: 1,
  });
}
