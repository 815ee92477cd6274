import type { GraphqlClient } from '../graphql-client';
import { type LoadResult, runLoad, type Task } from '../load-runner';
import { ACTOR_STATEMENT as ACTOR } from './actor-statement';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow } from './context';
import { loadSideBySide, median, ratiosByPhase, type SideBySideFigures } from './side-by-side';

const ME = `{ me { userId teamId } }`;

/**
 * The floor at 16 clients (issue 40): throughput against the bare statement, and against the bare
 * stack — the same framework answering the same query with the same SELECT and nothing of ours.
 */
const FLOOR_THROUGHPUT_RATIO = 0.25;
const FLOOR_BARE_RATIO = 0.8;
/** Rounds of the floor's three sides in turn; each side is measured for twice the run's duration in all. */
const FLOOR_ROUNDS = 12;
/**
 * Traces on, a request in ten sampled (issue 41): the service's Node CPU a request may rise by
 * this much at most. Measured side by side, in phases (the median phase is the row's figure).
 */
const TRACED_SAMPLE_RATIO = Number(process.env.BENCH_TRACES_SAMPLE ?? 0.1);
/** BENCH_TRACES_SAMPLE=off: both sides untraced, which measures the method's own error. */
const TRACED_OFF = process.env.BENCH_TRACES_SAMPLE === 'off';
const TRACED_CPU_RISE = 0.1;
const TRACED_PHASES = 8;
/** A fresh process keeps getting faster for its first tens of seconds (tiering); both sides warm this long. */
const TRACED_WARMUP_MS = 15_000;
/** A freshly started process runs unoptimized code for its first seconds (as the service's warm-up in run-bench.ts). */
const BARE_WARMUP_MS = 5000;

/**
 * The floor under every operation: an authenticated GraphQL request that runs one SQL statement,
 * against that statement alone. What an op costs above this is its own work. At one client it is
 * informational; at 16 it is judged against raw and against the bare stack (bare-app-process.ts,
 * on Express as the service; the Fastify row shows what that adapter alone would change).
 */
export async function graphqlFloorOps(ctx: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  const users = ctx.data.users;
  const token = (worker: number, seq: number): string => ctx.tokens[(worker * 31 + seq) % users];
  const rawTask: Task = async (worker, seq) => {
    const issuedAt = Math.floor(Date.now() / 1000);
    const result = await ctx.raw.query(ACTOR, [ctx.data.userIds[(worker * 31 + seq) % users], ctx.data.teamId, issuedAt]);
    if (result.rowCount === 0) throw new Error('raw: no actor');
  };
  const serviceTask: Task = async (worker, seq) => {
    await ctx.service.call(ME, {}, token(worker, seq));
  };

  const single = loadOptions(ctx.settings, 1);
  const singleRaw = await runLoad(rawTask, single);
  const singleService = await runLoad(serviceTask, single);
  rows.push({
    op: 'floor: { me } (auth + 1 SELECT)',
    concurrency: 1,
    service: singleService,
    raw: singleRaw,
    ratio: singleService.p50 / singleRaw.p50,
    ratioBasis: 'p50 latency',
    target: 'info',
    pass: clean(singleService, singleRaw) ? null : false,
    notes: errorNotes(['service', singleService], ['raw', singleRaw]),
  });

  // Raw, the service and the bare Express stack take turns in short phases, round after round: on
  // this shared machine the speed drifts by ±20 % over a minute, and a drift then weighs on all
  // three sides of a round alike. Each ratio is the median of its rounds'.
  const concurrent = loadOptions(ctx.settings, ctx.settings.concurrency);
  const phase = { ...concurrent, durationMs: Math.ceil((2 * concurrent.durationMs) / FLOOR_ROUNDS) };
  const bareStack = await ctx.bareStack('express');
  const bareTask = meOnBareStack(bareStack.client, token);
  const rounds: { raw: LoadResult; service: LoadResult; bare: LoadResult }[] = [];
  try {
    for (let round = 0; round < FLOOR_ROUNDS; round++) {
      const warm = (ms: number) => ({ ...phase, warmupMs: round === 0 ? ms : 0 });
      rounds.push({
        raw: await runLoad(rawTask, warm(concurrent.warmupMs)),
        service: await runLoad(serviceTask, warm(concurrent.warmupMs)),
        bare: await bareStack.measured(() => runLoad(bareTask, warm(Math.max(concurrent.warmupMs, BARE_WARMUP_MS)))),
      });
    }
  } finally {
    await bareStack.stop();
  }
  const raw = combinePhases(rounds.map((r) => r.raw));
  const service = combinePhases(rounds.map((r) => r.service));
  const bare = combinePhases(rounds.map((r) => r.bare));
  const fastify = await measureBare(ctx, 'fastify', concurrent, token);
  const toRawByRound = rounds.map((r) => r.service.rps / r.raw.rps);
  const toBareByRound = rounds.map((r) => r.service.rps / r.bare.rps);
  const toRaw = median(toRawByRound);
  const toBare = median(toBareByRound);
  rows.push({
    op: 'floor: { me } (auth + 1 SELECT)',
    concurrency: ctx.settings.concurrency,
    service,
    raw,
    ratio: toRaw,
    ratioBasis: 'throughput',
    target: `≥ ${FLOOR_THROUGHPUT_RATIO}× raw rps; ≥ ${FLOOR_BARE_RATIO}× the bare stack's rps`,
    pass: clean(service, raw, bare) && toRaw >= FLOOR_THROUGHPUT_RATIO && toBare >= FLOOR_BARE_RATIO,
    notes: [
      `${toBare.toFixed(2)}× the bare Express stack's rps; Node CPU a request ${cpu(service)} against the bare stack's ${cpu(bare)}`,
      `by round (raw, service, bare in turn, ${phase.durationMs / 1000} s each): to raw ${byRound(toRawByRound)}; to bare ${byRound(toBareByRound)}`,
      ...errorNotes(['service', service], ['raw', raw], ['bare', bare]),
    ],
  });
  rows.push(await measureTraced(ctx, token));
  for (const [adapter, result] of [
    ['Express', bare],
    ['Fastify', fastify],
  ] as const) {
    rows.push({
      op: `floor: bare stack, ${adapter} + Apollo + 1 SELECT`,
      concurrency: ctx.settings.concurrency,
      service: result,
      raw,
      ratio: result.rps / raw.rps,
      ratioBasis: 'throughput',
      target: 'info',
      pass: clean(result) ? null : false,
      notes:
        adapter === 'Fastify'
          ? [
              `Node CPU a request ${cpu(result)}, ${percent(result.nodeCpuMsPerRequest / bare.nodeCpuMsPerRequest - 1)} against bare Express`,
            ]
          : errorNotes(['bare', result]),
    });
  }
  return rows;
}

/** `{ me }` on a bare stack, each worker with its token. */
function meOnBareStack(client: GraphqlClient, token: (worker: number, seq: number) => string): Task {
  return async (worker, seq) => {
    const answer = await client.call<{ me: { userId: string } }>(ME, {}, token(worker, seq));
    if (!answer.me.userId) throw new Error('bare: no user');
  };
}

/** The bare stack on `adapter` at the floor's concurrency, after a warm-up of its fresh process. */
async function measureBare(
  ctx: BenchContext,
  adapter: 'express' | 'fastify',
  options: ReturnType<typeof loadOptions>,
  token: (worker: number, seq: number) => string,
): Promise<LoadResult> {
  const bare = await ctx.bareStack(adapter);
  try {
    return await bare.measured(() =>
      runLoad(meOnBareStack(bare.client, token), { ...options, warmupMs: Math.max(options.warmupMs, BARE_WARMUP_MS) }),
    );
  } finally {
    await bare.stop();
  }
}

/**
 * The floor on a fresh service with traces on beside a fresh one without, both loaded at once
 * (side-by-side.ts): the traced side's Node CPU a request over the untraced side's.
 */
async function measureTraced(ctx: BenchContext, token: (worker: number, seq: number) => string): Promise<ResultRow> {
  // Both fresh and warmed alike: the service that ran the rows before would be the warmer side.
  const untraced = await ctx.freshService({});
  const traced = await ctx.freshService(TRACED_OFF ? {} : { traces: { ratio: TRACED_SAMPLE_RATIO } });
  let figures: SideBySideFigures;
  try {
    figures = await loadSideBySide(
      ctx,
      [
        { name: 'untraced', client: untraced.client, pid: untraced.pid },
        { name: 'traced', client: traced.client, pid: traced.pid },
      ],
      (client, worker, seq) => client.call(ME, {}, token(worker, seq)),
      { phases: TRACED_PHASES, warmupMs: TRACED_WARMUP_MS },
    );
  } finally {
    await traced.stop();
    await untraced.stop();
  }
  const exported = traced.exported();
  const { errors, meanCpu, rps } = figures;
  return {
    op: `floor: { me }, traced (${TRACED_OFF ? 'off' : `${TRACED_SAMPLE_RATIO * 100}% sampled`}) beside untraced`,
    concurrency: ctx.settings.concurrency,
    service: null,
    raw: null,
    ratio: figures.ratio,
    ratioBasis: 'Node CPU',
    target: `≤ ${1 + TRACED_CPU_RISE}× the untraced service's Node CPU a request`,
    // A run whose sink took nothing measured no tracing at all.
    pass: errors.length === 0 && (TRACED_OFF || exported.requests > 0) && figures.ratio <= 1 + TRACED_CPU_RISE,
    notes: [
      `Node CPU a request, mean of ${figures.phases.length} phases: traced ${meanCpu[1].toFixed(3)} ms, untraced ${meanCpu[0].toFixed(3)} ms; ${rps[1].toFixed(0)} and ${rps[0].toFixed(0)} rps`,
      `traced / untraced by phase: ${ratiosByPhase(figures)}`,
      `the collector took ${exported.requests} export requests, ${(exported.bytes / 1024).toFixed(0)} KB`,
      ...(errors.length > 0 ? [`${errors.length} errors, first: ${errors[0]}`] : []),
    ],
  };
}

/**
 * Phases of one side as one result: requests, time and CPU summed (rates over the whole), latency
 * percentiles the median of the phases' (each phase's distribution is a sample of the same one).
 */
function combinePhases(phases: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => phases.reduce((total, r) => total + pick(r), 0);
  const requests = sum((r) => r.requests);
  const elapsedMs = sum((r) => r.elapsedMs);
  const perRequest = (pick: (r: LoadResult) => number) => sum((r) => pick(r) * r.requests) / requests;
  return {
    requests,
    errors: sum((r) => r.errors),
    firstError: phases.find((r) => r.firstError !== undefined)?.firstError,
    elapsedMs,
    rps: (requests / elapsedMs) * 1000,
    p50: median(phases.map((r) => r.p50)),
    p99: median(phases.map((r) => r.p99)),
    nodeCpuMsPerRequest: perRequest((r) => r.nodeCpuMsPerRequest),
    clientCpuMsPerRequest: perRequest((r) => r.clientCpuMsPerRequest),
    postgresCpuMsPerRequest: perRequest((r) => r.postgresCpuMsPerRequest),
  };
}

const byRound = (ratios: readonly number[]): string => ratios.map((r) => r.toFixed(2)).join(', ');
const cpu = (result: LoadResult): string => `${result.nodeCpuMsPerRequest.toFixed(3)} ms`;
const percent = (fraction: number): string => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(0)}%`;
