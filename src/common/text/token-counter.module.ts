import { Global, Module } from '@nestjs/common';
import { WORKER_POOL_METRIC_PROVIDERS, WorkerPoolMetrics } from '../workers/worker-pool.metrics';
import { TokenCounter } from './token-counter';

/** One token-count pool per process, for every module that counts large texts; the gauges every worker pool reports to. */
@Global()
@Module({ providers: [TokenCounter, WorkerPoolMetrics, ...WORKER_POOL_METRIC_PROVIDERS], exports: [TokenCounter, WorkerPoolMetrics] })
export class TokenCounterModule {}
