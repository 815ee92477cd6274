import { Injectable } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge, Histogram } from 'prom-client';

const INJECTION_TOKENS = 'tool_results_injection_tokens';
const INJECTION_TOKENS_HISTOGRAM = 'tool_results_injection_tokens_histogram';

export const RECALL_METRIC_PROVIDERS = [
  makeGaugeProvider({ name: INJECTION_TOKENS, help: 'Tokens of the last "Previously fetched" block built (R-RC-4).' }),
  makeHistogramProvider({
    name: INJECTION_TOKENS_HISTOGRAM,
    help: 'Tokens of each "Previously fetched" block built (R-RC-4).',
    buckets: [0, 25, 50, 100, 150, 200, 250, 300, 400],
  }),
];

@Injectable()
export class RecallMetrics {
  constructor(
    @InjectMetric(INJECTION_TOKENS) private readonly tokens: Gauge,
    @InjectMetric(INJECTION_TOKENS_HISTOGRAM) private readonly tokensHistogram: Histogram,
  ) {}

  blockBuilt(tokens: number): void {
    this.tokens.set(tokens);
    this.tokensHistogram.observe(tokens);
  }
}
