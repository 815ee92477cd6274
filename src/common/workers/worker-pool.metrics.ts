import { Injectable } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';

const QUEUE_LENGTH = 'worker_pool_queue_length';
const BUSY_THREADS = 'worker_pool_busy_threads';

export const WORKER_POOL_METRIC_PROVIDERS = [
  makeGaugeProvider({ name: QUEUE_LENGTH, help: 'Tasks waiting for a worker thread, by pool.', labelNames: ['pool'] }),
  makeGaugeProvider({ name: BUSY_THREADS, help: 'Worker threads running a task, by pool.', labelNames: ['pool'] }),
];

/** The occupancy gauges the team-fair worker pools report to, labelled by pool (a fixed name per pool). */
@Injectable()
export class WorkerPoolMetrics {
  constructor(
    @InjectMetric(QUEUE_LENGTH) private readonly queueLength: Gauge,
    @InjectMetric(BUSY_THREADS) private readonly busyThreads: Gauge,
  ) {}

  /** What a TeamFairPool calls on each change of its occupancy. */
  occupancy(pool: string): (busyThreads: number, queued: number) => void {
    return (busy, queued) => {
      this.busyThreads.set({ pool }, busy);
      this.queueLength.set({ pool }, queued);
    };
  }
}
