import { processCpuMs } from '../cpu';
import type { GraphqlClient } from '../graphql-client';
import type { BenchContext } from './context';

/** One of two services loaded at once. */
export interface Side {
  readonly name: string;
  readonly client: GraphqlClient;
  readonly pid: number;
}

/** A call a client makes, to whichever side's client it is given. */
export type SideCall = (client: GraphqlClient, worker: number, seq: number) => Promise<unknown>;

/** Each side's Node CPU a request (ms) and requests served, in one phase; index 0 is the first side. */
interface SidePhase {
  readonly cpu: readonly [number, number];
  readonly requests: readonly [number, number];
}

export interface SideBySideFigures {
  readonly phases: readonly SidePhase[];
  readonly errors: readonly string[];
  /** The second side's Node CPU a request over the first's, the median of the phases'. */
  readonly ratio: number;
  /** Each side's Node CPU a request, the mean of the phases'. */
  readonly meanCpu: readonly [number, number];
  /** Each side's requests a second over the measured phases. */
  readonly rps: readonly [number, number];
}

/**
 * Two services loaded at once, each client calling them in turn, for a warm-up and then `phases`
 * phases of the run's duration: whatever slows the machine in a phase slows both sides of its
 * ratio, and both serve as many requests at the same concurrency, so the CPU a process spends
 * whatever it serves (timers, a collector's batches) weighs the same on each. On this shared
 * two-core machine two identical services measured one after the other differ by up to ±20 % a
 * phase; side by side, by ±10 %, and the median of eight phases by a few percent.
 */
export async function loadSideBySide(
  ctx: BenchContext,
  sides: readonly [Side, Side],
  call: SideCall,
  options: { phases: number; warmupMs: number },
): Promise<SideBySideFigures> {
  const phases: SidePhase[] = [];
  const errors: string[] = [];
  for (let phase = -1; phase < options.phases; phase++) {
    const before = sides.map((side) => processCpuMs(side.pid));
    const requests: [number, number] = [0, 0];
    const deadline = performance.now() + (phase < 0 ? options.warmupMs : ctx.settings.durationMs);
    await Promise.all(
      Array.from({ length: ctx.settings.concurrency }, async (_, worker) => {
        for (let seq = 0; performance.now() < deadline && errors.length < 20; seq++) {
          const side = (worker + seq) % 2;
          try {
            await call(sides[side].client, worker, seq);
            requests[side]++;
          } catch (error) {
            errors.push(`${sides[side].name}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }),
    );
    const cpu = (i: 0 | 1): number => (processCpuMs(sides[i].pid) - before[i]) / Math.max(1, requests[i]);
    if (phase >= 0) phases.push({ cpu: [cpu(0), cpu(1)], requests });
  }
  const mean = (i: 0 | 1): number => phases.reduce((sum, p) => sum + p.cpu[i], 0) / phases.length;
  const rps = (i: 0 | 1): number => phases.reduce((sum, p) => sum + p.requests[i], 0) / ((phases.length * ctx.settings.durationMs) / 1000);
  return {
    phases,
    errors,
    ratio: median(phases.map((p) => p.cpu[1] / p.cpu[0])),
    meanCpu: [mean(0), mean(1)],
    rps: [rps(0), rps(1)],
  };
}

/** The phases' ratios, second side over first, in ascending order, for a note. */
export function ratiosByPhase(figures: SideBySideFigures): string {
  return figures.phases
    .map((p) => p.cpu[1] / p.cpu[0])
    .sort((a, b) => a - b)
    .map((r) => r.toFixed(2))
    .join(', ');
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
