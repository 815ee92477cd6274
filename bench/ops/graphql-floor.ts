import { type LoadResult, runLoad, type Task } from '../load-runner';
import { ACTOR_STATEMENT as ACTOR } from './actor-statement';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow } from './context';

const ME = `{ me { userId teamId } }`;

/**
 * The floor at 16 clients (issue 40): throughput against the bare statement, and against the bare
 * stack — the same framework answering the same query with the same SELECT and nothing of ours.
 */
const FLOOR_THROUGHPUT_RATIO = 0.25;
const FLOOR_BARE_RATIO = 0.8;
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

  const concurrent = loadOptions(ctx.settings, ctx.settings.concurrency);
  const raw = await runLoad(rawTask, concurrent);
  const service = await runLoad(serviceTask, concurrent);
  const bare = await measureBare(ctx, 'express', concurrent, token);
  const fastify = await measureBare(ctx, 'fastify', concurrent, token);
  const toRaw = service.rps / raw.rps;
  const toBare = service.rps / bare.rps;
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
      ...errorNotes(['service', service], ['raw', raw], ['bare', bare]),
    ],
  });
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

/** The bare stack on `adapter` at the floor's concurrency, after a warm-up of its fresh process. */
async function measureBare(
  ctx: BenchContext,
  adapter: 'express' | 'fastify',
  options: ReturnType<typeof loadOptions>,
  token: (worker: number, seq: number) => string,
): Promise<LoadResult> {
  const bare = await ctx.bareStack(adapter);
  try {
    const task: Task = async (worker, seq) => {
      const answer = await bare.client.call<{ me: { userId: string } }>(ME, {}, token(worker, seq));
      if (!answer.me.userId) throw new Error('bare: no user');
    };
    return await runLoad(task, { ...options, warmupMs: Math.max(options.warmupMs, BARE_WARMUP_MS) });
  } finally {
    await bare.stop();
  }
}

const cpu = (result: LoadResult): string => `${result.nodeCpuMsPerRequest.toFixed(3)} ms`;
const percent = (fraction: number): string => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(0)}%`;
