import { cpuNow } from './cpu';

/** Latencies of one measured phase, in milliseconds; bounded so a fast op cannot eat memory. */
export class LatencyRecorder {
  private readonly samples: Float64Array;
  private count = 0;

  constructor(capacity = 1_000_000) {
    this.samples = new Float64Array(capacity);
  }

  record(ms: number): void {
    if (this.count < this.samples.length) this.samples[this.count++] = ms;
  }

  get size(): number {
    return this.count;
  }

  /** The q-quantile (0..1) by nearest rank; NaN when nothing was recorded. */
  percentile(q: number): number {
    if (this.count === 0) return Number.NaN;
    const sorted = this.samples.slice(0, this.count).sort();
    return sorted[Math.min(this.count - 1, Math.max(0, Math.ceil(q * this.count) - 1))];
  }
}

export interface LoadOptions {
  concurrency: number;
  /** Unmeasured run of the same loop first (connections, JIT, caches). */
  warmupMs: number;
  durationMs: number;
  /** Stops earlier once this many requests were measured. */
  maxRequests: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  firstError?: string;
  elapsedMs: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU per measured request: the service's Node process, the load generator's (client; `pg` on the raw side), PostgreSQL. */
  nodeCpuMsPerRequest: number;
  clientCpuMsPerRequest: number;
  postgresCpuMsPerRequest: number;
}

/** One request; `worker` is 0..concurrency-1, `seq` counts that worker's calls. Throws on a wrong answer. */
export type Task = (worker: number, seq: number) => Promise<void>;

/**
 * Runs `task` in `concurrency` loops, a warm-up then a measured phase bounded in time and count.
 * Failed calls are counted, not timed.
 */
export async function runLoad(task: Task, options: LoadOptions): Promise<LoadResult> {
  const sequence = Array.from({ length: options.concurrency }, () => 0);
  if (options.warmupMs > 0) await phase(task, options.concurrency, options.warmupMs, Number.MAX_SAFE_INTEGER, sequence, null);
  const recorder = new LatencyRecorder(Math.min(options.maxRequests, 1_000_000));
  const started = performance.now();
  const cpuBefore = cpuNow();
  const outcome = await phase(task, options.concurrency, options.durationMs, options.maxRequests, sequence, recorder);
  const cpuAfter = cpuNow();
  const elapsedMs = performance.now() - started;
  const perRequest = (ms: number) => (recorder.size > 0 ? ms / recorder.size : Number.NaN);
  return {
    requests: recorder.size,
    errors: outcome.errors,
    firstError: outcome.firstError,
    elapsedMs,
    rps: (recorder.size / elapsedMs) * 1000,
    p50: recorder.percentile(0.5),
    p99: recorder.percentile(0.99),
    nodeCpuMsPerRequest: perRequest(cpuAfter.serviceMs - cpuBefore.serviceMs),
    clientCpuMsPerRequest: perRequest(cpuAfter.clientMs - cpuBefore.clientMs),
    postgresCpuMsPerRequest: perRequest(cpuAfter.postgresMs - cpuBefore.postgresMs),
  };
}

async function phase(
  task: Task,
  concurrency: number,
  durationMs: number,
  maxRequests: number,
  sequence: number[],
  recorder: LatencyRecorder | null,
): Promise<{ errors: number; firstError?: string }> {
  const deadline = performance.now() + durationMs;
  let issued = 0;
  let errors = 0;
  let firstError: string | undefined;
  const loop = async (worker: number): Promise<void> => {
    while (performance.now() < deadline && issued < maxRequests) {
      issued++;
      const seq = sequence[worker]++;
      const t0 = performance.now();
      try {
        await task(worker, seq);
        recorder?.record(performance.now() - t0);
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
        // A failing op must not spin: give up on this phase after a handful of errors.
        if (errors >= 20) return;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, worker) => loop(worker)));
  return { errors, firstError };
}
