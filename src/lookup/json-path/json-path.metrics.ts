import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';

const BUSY = 'json_path_pool_busy_threads';
const QUEUED = 'json_path_pool_queue_length';
const EVALUATIONS = 'json_path_library_evaluations_total';
const SEARCHES = 'pattern_searches_total';
const TEXT_SEARCHES = 'substring_searches_total';
const PAYLOAD_TEXTS = 'lookup_payload_texts_total';

/** How the pool ended a task of either kind: not run (busy, over the request's count), its thread terminated or failed. */
export type PoolOutcome = 'terminated' | 'busy' | 'over_request_budget' | 'error';
/** How a library evaluation ended; no team, path or payload ever becomes a label. */
export type LibraryOutcome = 'ok' | 'too_many' | 'timed_out' | PoolOutcome;
/** How a pattern search ended; no team, pattern or payload ever becomes a label. */
export type PatternOutcome = 'ok' | 'bad_pattern' | 'timed_out' | PoolOutcome;
/** How a substring search in a worker thread ended; no team, query or payload ever becomes a label. */
export type SubstringOutcome = 'ok' | 'timed_out' | PoolOutcome;

/** How a large stored payload's text was read on a worker thread; no team or payload ever becomes a label. */
export type PayloadTextOutcome = 'ok' | 'busy' | 'terminated' | 'error';

export const JSON_PATH_METRIC_PROVIDERS = [
  makeGaugeProvider({ name: BUSY, help: 'JSONPath worker threads running a library evaluation (R-TN-10).' }),
  makeGaugeProvider({ name: QUEUED, help: 'Library evaluations waiting for a JSONPath worker thread (R-TN-10).' }),
  makeCounterProvider({ name: EVALUATIONS, help: 'JSONPath library evaluations by outcome (R-TN-10).', labelNames: ['outcome'] }),
  makeCounterProvider({ name: SEARCHES, help: 'Pattern searches of recall_tool_result by outcome (R-LG-2).', labelNames: ['outcome'] }),
  makeCounterProvider({
    name: TEXT_SEARCHES,
    help: 'Substring (query) searches of recall_tool_result run in a worker thread, by outcome (R-TN-10).',
    labelNames: ['outcome'],
  }),
  makeCounterProvider({
    name: PAYLOAD_TEXTS,
    help: 'Large stored payloads read as text for a lookup in a worker thread, by outcome (R-TN-10).',
    labelNames: ['outcome'],
  }),
];

@Injectable()
export class JsonPathMetrics {
  constructor(
    @InjectMetric(BUSY) private readonly busy: Gauge,
    @InjectMetric(QUEUED) private readonly queued: Gauge,
    @InjectMetric(EVALUATIONS) private readonly evaluations: Counter<'outcome'>,
    @InjectMetric(SEARCHES) private readonly searches: Counter<'outcome'>,
    @InjectMetric(TEXT_SEARCHES) private readonly textSearches: Counter<'outcome'>,
    @InjectMetric(PAYLOAD_TEXTS) private readonly payloadTexts: Counter<'outcome'>,
  ) {}

  occupancy(busyThreads: number, queueLength: number): void {
    this.busy.set(busyThreads);
    this.queued.set(queueLength);
  }

  evaluated(outcome: LibraryOutcome): void {
    this.evaluations.inc({ outcome });
  }

  searched(outcome: PatternOutcome): void {
    this.searches.inc({ outcome });
  }

  searchedText(outcome: SubstringOutcome): void {
    this.textSearches.inc({ outcome });
  }

  readPayloadText(outcome: PayloadTextOutcome): void {
    this.payloadTexts.inc({ outcome });
  }
}
