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
  makeGaugeProvider({
    name: IN_FLIGHT,
    help: 'HTTP requests being served, every team together, by lane (R-TN-11).',
    labelNames: ['lane'],
    collect(this: Gauge<'lane'>) {
      for (const [lane, occupancy] of watchedLanes(this)) this.set({ lane }, occupancy.busySlots);
    },
  }),
  makeGaugeProvider({
    name: WAITING,
    help: 'HTTP requests waiting for their team turn, by lane (R-TN-11).',
    labelNames: ['lane'],
    collect(this: Gauge<'lane'>) {
      for (const [lane, occupancy] of watchedLanes(this)) this.set({ lane }, occupancy.queued);
    },
  }),
];

/** A lane's counts as admission keeps them. */
export interface LaneOccupancy {
  readonly busySlots: number;
  readonly queued: number;
}

/** The lanes each gauge reads when scraped (keyed by the gauge: the provider's `collect` has no injector). */
const lanesByGauge = new WeakMap<object, Map<AdmissionLane, LaneOccupancy>>();

function watchedLanes(gauge: object): Map<AdmissionLane, LaneOccupancy> {
  let lanes = lanesByGauge.get(gauge);
  if (lanes === undefined) lanesByGauge.set(gauge, (lanes = new Map<AdmissionLane, LaneOccupancy>()));
  return lanes;
}

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

  /** The lane's counts, read at each scrape of the in-flight and waiting gauges. */
  watch(lane: AdmissionLane, occupancy: LaneOccupancy): void {
    watchedLanes(this.inFlight).set(lane, occupancy);
    watchedLanes(this.waiting).set(lane, occupancy);
  }
}
