import { setTimeout as sleep } from 'node:timers/promises';
import type { GraphqlClient, HttpAnswer, RequestOptions } from '../graphql-client';
import type { Member } from '../soak-load';
import { ServiceClock, threadCpuMs } from './clock';
import type { RunFigures } from './figures';

/** What every probe gets: the service under test, its clock, a team to act as, and how many runs to make. */
export interface InventoryContext {
  runs: number;
  clock: ServiceClock;
  client: GraphqlClient;
  baseUrl: URL;
  /** A member of the team every probe acts in (memory:read, memory:write, feedback:write). */
  member: Member;
  /** The same team's admin token. */
  adminToken: string;
  /** The longest the service's event loop was held since the last call, ms (and a new watch starts). */
  longestLoopHoldMs: () => Promise<number>;
  /** The bench database, as its owner (set-up the API has no way to make, such as aged rows). */
  databaseUrl: string;
  log: (line: string) => void;
  /** Adds a footnote to the probe's row (an outcome worth knowing, e.g. a deadline that cut a run short). */
  note: (text: string) => void;
}

/** One path of the inventory: its description, and how to measure its worst case. */
export interface Probe {
  id: string;
  path: string;
  grows: string;
  bound: string;
  runsOn: string;
  worstCase: string;
  /** Fewer runs than the context's for a costly probe (minutes of set-up per run). */
  maxRuns?: number;
  measure: (ctx: InventoryContext) => Promise<RunFigures[]> | RunFigures[];
}

/** The measured request of one run: sends it and checks the answer is the one the row claims to measure. */
export type MeasuredCall = () => Promise<void>;

// After the answer: the response's close, the turn given back, the last log line.
const SETTLE_MS = 10;

/**
 * Runs `prepare(run)` (set-up, not measured) then the call it returns, one run at a time: once to
 * warm the service up (not counted), then `runs` times. Each run's CPU is read from the service's
 * threads and PostgreSQL's backends around the call; with `memory`, its peak resident memory too.
 */
export async function measureRequests(
  ctx: InventoryContext,
  runs: number,
  prepare: (run: number) => MeasuredCall | Promise<MeasuredCall>,
  options: { memory?: boolean } = {},
): Promise<RunFigures[]> {
  const figures: RunFigures[] = [];
  for (let run = -1; run < runs; run++) {
    const call = await prepare(run + 1);
    await sleep(SETTLE_MS);
    const rssBefore = options.memory ? ctx.clock.resetPeakMemory() : 0;
    await ctx.longestLoopHoldMs();
    const before = ctx.clock.read();
    await call();
    await sleep(SETTLE_MS);
    const spent = ServiceClock.spent(before, ctx.clock.read());
    const holdMs = await ctx.longestLoopHoldMs();
    const peakMiB = options.memory ? (ctx.clock.memoryKiB().peak - rssBefore) / 1024 : null;
    if (run >= 0) figures.push({ loopMs: spent.loopMs, holdMs, poolMs: spent.workerMs, postgresMs: spent.postgresMs, peakMiB });
  }
  return figures;
}

/**
 * A service function called in this process at its limits: `prepare(run)` builds the input (not
 * measured), `work` is timed on this thread's CPU clock; a warm-up run first, not counted. With
 * `memory`, the heap what `work` returned keeps once the input is dropped (the input too, when the
 * result holds on to it), after a collection (so `--expose-gc`).
 */
export function measureInProcess<T>(
  runs: number,
  prepare: (run: number) => T,
  work: (input: T) => unknown,
  options: { memory?: boolean } = {},
): RunFigures[] {
  const figures: RunFigures[] = [];
  for (let run = -1; run < runs; run++) {
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    let input: T | undefined = prepare(run + 1);
    const start = threadCpuMs();
    const kept = work(input);
    const loopMs = threadCpuMs() - start;
    input = undefined;
    let peakMiB: number | null = null;
    if (options.memory) {
      collectGarbage();
      peakMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    }
    if (kept === undefined) throw new Error('measureInProcess: the work must return what it made, or the collector may drop it');
    if (run >= 0) figures.push({ loopMs, holdMs: loopMs, poolMs: null, postgresMs: null, peakMiB });
  }
  return figures;
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:inventory does)');
  gc();
}

/** POSTs `body` and checks the answer with `expect`, which names what was wanted when it is not there. */
export async function sendExpecting(
  ctx: InventoryContext,
  path: string,
  body: string | Buffer,
  options: RequestOptions,
  expect: (answer: HttpAnswer) => string | null,
): Promise<HttpAnswer> {
  const answer = await ctx.client.request(path, body, options);
  const problem = expect(answer);
  if (problem !== null) throw new Error(`${path}: ${problem}; got HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer;
}

/** A GraphQL answer with `data` and no error (the row measures the work, not a refusal). */
export const graphqlData = (answer: HttpAnswer): string | null =>
  answer.status === 200 && !answer.text.startsWith('{"errors"') && !answer.text.includes('"errors":[') ? null : 'data without errors';

/** A GraphQL answer refused with this code. */
export const graphqlError =
  (code: string) =>
  (answer: HttpAnswer): string | null =>
    answer.text.includes(`"code":"${code}"`) ? null : `an error coded ${code}`;

/** The answer's text holds one of `fragments`. */
export const contains =
  (...fragments: string[]) =>
  (answer: HttpAnswer): string | null =>
    fragments.some((fragment) => answer.text.includes(fragment))
      ? null
      : `an answer holding ${fragments.map((fragment) => JSON.stringify(fragment.slice(0, 80))).join(' or ')}`;

/** A GraphQL body of `query` and `variables`, as text. */
export const graphqlBody = (query: string, variables: Record<string, unknown> = {}): string => JSON.stringify({ query, variables });
