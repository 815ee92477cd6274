import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';

const INJECTION_TOKENS = 'tool_results_injection_tokens';
const INJECTION_TOKENS_HISTOGRAM = 'tool_results_injection_tokens_histogram';
const RECALL_EVENTS = 'recall_events_total';

/** Label values: closed sets only. */
export type RecallEventOutcomeLabel = 'stored' | 'degraded';

export const RECALL_METRIC_PROVIDERS = [
  makeGaugeProvider({ name: INJECTION_TOKENS, help: 'Tokens of the last "Previously fetched" block built (R-RC-4).' }),
  makeHistogramProvider({
    name: INJECTION_TOKENS_HISTOGRAM,
    help: 'Tokens of each "Previously fetched" block built (R-RC-4).',
    buckets: [0, 25, 50, 100, 150, 200, 250, 300, 400],
  }),
  makeCounterProvider({ name: RECALL_EVENTS, help: 'Recall events by source (INTERNAL, EXTERNAL) and outcome (stored, degraded) (R-RC-9).', labelNames: ['source', 'outcome'] }),
];

@Injectable()
export class RecallMetrics {
  constructor(
    @InjectMetric(INJECTION_TOKENS) private readonly tokens: Gauge,
    @InjectMetric(INJECTION_TOKENS_HISTOGRAM) private readonly tokensHistogram: Histogram,
    @InjectMetric(RECALL_EVENTS) private readonly recallEvents: Counter<'source' | 'outcome'>,
  ) {}

  recallEventRecorded(source: 'INTERNAL' | 'EXTERNAL', outcome: RecallEventOutcomeLabel): void {
    this.recallEvents.inc({ source, outcome });
  }

  blockBuilt(tokens: number): void {
    this.tokens.set(tokens);
    this.tokensHistogram.observe(tokens);
  }
}
