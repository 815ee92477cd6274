import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import { Piscina } from 'piscina';
import type { Gauge } from 'prom-client';
import { AppConfig } from '../../config/app-config';
import { AppError, ErrorCode } from '../errors/app-error';
import { workerModule } from '../workers/worker-module';
import { type CountedJson, type CountedText, countedTexts, jsonArrayChars, knownCounts, serializeEach, sum } from './json-array-tokens';
import { countTokens } from './tokenizer';

/** Below this many characters a text is counted where it is: a worker's round trip would cost more (~2 ms of counting). */
export const OFF_THREAD_FROM_CHARS = 32_768;

const QUEUE_LENGTH = 'worker_pool_queue_length';
const BUSY_THREADS = 'worker_pool_busy_threads';

export const TOKEN_COUNTER_METRIC_PROVIDERS = [
  makeGaugeProvider({ name: QUEUE_LENGTH, help: 'Tasks waiting for a worker thread, by pool.', labelNames: ['pool'] }),
  makeGaugeProvider({ name: BUSY_THREADS, help: 'Worker threads running a task, by pool.', labelNames: ['pool'] }),
];

const POOL = 'token_count';

/**
 * Token counts of large texts, off the main thread (R-TN-10): tokenizing a megabyte of JSON takes
 * half a second of CPU, during which the event loop would answer no one. Small texts are counted
 * in place. The pool's queue is bounded; when it is full the caller gets RATE_LIMITED (the
 * per-team in-flight limit keeps one team from filling it alone: each request has at most one
 * task here at a time).
 */
@Injectable()
export class TokenCounter implements OnModuleDestroy {
  private readonly pool: Piscina;
  private outstanding = 0;

  constructor(
    config: AppConfig,
    @InjectMetric(QUEUE_LENGTH) private readonly queueLength: Gauge,
    @InjectMetric(BUSY_THREADS) private readonly busyThreads: Gauge,
  ) {
    this.pool = new Piscina({
      ...workerModule(__dirname, __filename, 'token-count.worker'),
      minThreads: 0,
      maxThreads: config.workers.tokenCountThreads,
      maxQueue: config.workers.tokenCountQueue,
      idleTimeout: 60_000,
    });
  }

  /** countTokens of `text`. */
  async count(text: string): Promise<number> {
    if (text.length < OFF_THREAD_FROM_CHARS) return countTokens(text);
    return this.run<number>(text, 'countText');
  }

  /** countTokens of each text, in one task. */
  async countEach(texts: readonly string[]): Promise<number[]> {
    if (texts.reduce((sum, text) => sum + text.length, 0) < OFF_THREAD_FROM_CHARS) return texts.map(countTokens);
    return this.run<number[]>(texts, 'countTexts');
  }

  /**
   * `countTokens` of each text, the counts of pieces seen lately reused: only the others are
   * tokenized (off the main thread when they are large), so a history resent every turn costs the
   * hashing of its old messages and the counting of its new ones.
   */
  async countCached(texts: readonly CountedText[]): Promise<number[]> {
    const { counts, remember } = knownCounts(texts);
    const missing = counts.flatMap((known, index) => (known === undefined ? [index] : []));
    if (missing.length === 0) return counts as number[];
    const counted = await this.countEach(missing.map((index) => texts[index].text));
    missing.forEach((index, order) => {
      counts[index] = counted[order];
      remember(index, counted[order]);
    });
    return counts as number[];
  }

  /** `JSON.stringify(items)`'s length and its exact token count (json-array-tokens' countJsonArray). */
  async countJsonArray(items: readonly object[], serialized: WeakMap<object, string>): Promise<CountedJson> {
    const parts = serializeEach(items, serialized);
    return { chars: jsonArrayChars(parts), tokens: sum(await this.countCached(countedTexts(parts))) };
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }

  private async run<T>(task: unknown, name: string): Promise<T> {
    const { maxThreads, maxQueue } = this.pool.options;
    if (this.outstanding >= maxThreads + maxQueue) {
      throw new AppError(ErrorCode.RATE_LIMITED, 'This replica is busy counting the tokens of other large payloads; retry in a second.', {
        limit: 'TOKEN_COUNT_QUEUE_MAX',
        retryAfterSeconds: 1,
      });
    }
    this.outstanding += 1;
    this.report();
    try {
      return (await this.pool.run(task, { name })) as T;
    } finally {
      this.outstanding -= 1;
      this.report();
    }
  }

  private report(): void {
    const queued = this.pool.queueSize;
    this.queueLength.set({ pool: POOL }, queued);
    this.busyThreads.set({ pool: POOL }, Math.max(0, this.outstanding - queued));
  }
}
