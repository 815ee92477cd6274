import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';

const RATE_LIMITED = 'rate_limited_total';
const IN_FLIGHT = 'admission_in_flight';
const WAITING = 'admission_queue_length';

/** Where a refused request came in; a closed set, and no team (R-TN-10: labels never name a tenant). */
export type AdmissionEdge = 'graphql' | 'mcp';

/** Admission's lanes: ordinary requests, and those with large bodies (a closed set). */
export type AdmissionLane = 'ordinary' | 'large';

export const FAIRNESS_METRIC_PROVIDERS = [
  makeCounterProvider({
    name: RATE_LIMITED,
    help: 'Requests refused with RATE_LIMITED (HTTP 429) at admission: no room to wait, or the wait past its bound (R-TN-11).',
    labelNames: ['edge'],
  }),
  makeGaugeProvider({ name: IN_FLIGHT, help: 'HTTP requests being served, every team together, by lane (R-TN-11).', labelNames: ['lane'] }),
  makeGaugeProvider({ name: WAITING, help: 'HTTP requests waiting for their team turn, by lane (R-TN-11).', labelNames: ['lane'] }),
];

@Injectable()
export class FairnessMetrics {
  constructor(
    @InjectMetric(RATE_LIMITED) private readonly rateLimited: Counter<'edge'>,
    @InjectMetric(IN_FLIGHT) private readonly inFlight: Gauge<'lane'>,
    @InjectMetric(WAITING) private readonly waiting: Gauge<'lane'>,
  ) {}

  refused(edge: AdmissionEdge): void {
    this.rateLimited.inc({ edge });
  }

  occupancy(lane: AdmissionLane, inFlight: number, waiting: number): void {
    this.inFlight.set({ lane }, inFlight);
    this.waiting.set({ lane }, waiting);
  }
}
