import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';

const RATE_LIMITED = 'rate_limited_total';

/** Where a refused request came in; a closed set, and no team (R-TN-10: labels never name a tenant). */
export type AdmissionEdge = 'graphql' | 'mcp';

export const FAIRNESS_METRIC_PROVIDERS = [
  makeCounterProvider({
    name: RATE_LIMITED,
    help: 'Requests refused with RATE_LIMITED (HTTP 429) because their team was over its in-flight limit (R-TN-10).',
    labelNames: ['edge'],
  }),
];

@Injectable()
export class FairnessMetrics {
  constructor(@InjectMetric(RATE_LIMITED) private readonly rateLimited: Counter<'edge'>) {}

  refused(edge: AdmissionEdge): void {
    this.rateLimited.inc({ edge });
  }
}
