import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';

const RATE_LIMITED = 'rate_limited_total';
const IN_FLIGHT = 'admission_in_flight';
const WAITING = 'admission_queue_length';

/** Where a refused request came in; a closed set, and no team (R-TN-10: labels never name a tenant). */
export type AdmissionEdge = 'graphql' | 'mcp';

export const FAIRNESS_METRIC_PROVIDERS = [
  makeCounterProvider({
    name: RATE_LIMITED,
    help: 'Requests refused with RATE_LIMITED (HTTP 429) at admission: no room to wait, or the wait past its bound (R-TN-11).',
    labelNames: ['edge'],
  }),
  makeGaugeProvider({ name: IN_FLIGHT, help: 'HTTP requests being served, every team together (R-TN-11).' }),
  makeGaugeProvider({ name: WAITING, help: 'HTTP requests waiting for their team turn (R-TN-11).' }),
];

@Injectable()
export class FairnessMetrics {
  constructor(
    @InjectMetric(RATE_LIMITED) private readonly rateLimited: Counter<'edge'>,
    @InjectMetric(IN_FLIGHT) private readonly inFlight: Gauge,
    @InjectMetric(WAITING) private readonly waiting: Gauge,
  ) {}

  refused(edge: AdmissionEdge): void {
    this.rateLimited.inc({ edge });
  }

  occupancy(inFlight: number, waiting: number): void {
    this.inFlight.set(inFlight);
    this.waiting.set(waiting);
  }
}
