import { runLoad, type Task } from '../load-runner';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow } from './context';

const ME = `{ me { userId teamId } }`;
/**
 * The statement every authenticated request runs (ActorRepository.findByUserId; the function is in
 * the migrations, and makes the request's tenant settings from the token's user and team).
 */
const ACTOR = `select space_id, generation from actor_spaces($1::uuid, $2::uuid, to_timestamp($3))`;

/** Issue 25's bar for the floor at 16 clients: throughput against the bare statement, and the service's Node CPU a request. */
const FLOOR_THROUGHPUT_RATIO = 0.25;
const FLOOR_NODE_CPU_MS = 0.25;

/**
 * The floor under every operation: an authenticated GraphQL request that runs one SQL statement,
 * against that statement alone. What an op costs above this is its own work. At one client it is
 * informational; at 16 it is judged (issue 25).
 */
export async function graphqlFloorOps(ctx: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const concurrency of [1, ctx.settings.concurrency]) {
    const users = ctx.data.users;
    const rawTask: Task = async (worker, seq) => {
      const issuedAt = Math.floor(Date.now() / 1000);
      const result = await ctx.raw.query(ACTOR, [ctx.data.userIds[(worker * 31 + seq) % users], ctx.data.teamId, issuedAt]);
      if (result.rowCount === 0) throw new Error('raw: no actor');
    };
    const serviceTask: Task = async (worker, seq) => {
      await ctx.service.call(ME, {}, ctx.tokens[(worker * 31 + seq) % users]);
    };
    const options = loadOptions(ctx.settings, concurrency);
    const raw = await runLoad(rawTask, options);
    const service = await runLoad(serviceTask, options);
    const single = concurrency === 1;
    rows.push({
      op: 'floor: { me } (auth + 1 SELECT)',
      concurrency,
      service,
      raw,
      ratio: single ? service.p50 / raw.p50 : service.rps / raw.rps,
      ratioBasis: single ? 'p50 latency' : 'throughput',
      target: single ? 'info' : `≥ ${FLOOR_THROUGHPUT_RATIO}× raw rps; service Node CPU ≤ ${FLOOR_NODE_CPU_MS} ms a request`,
      pass: single
        ? clean(service, raw)
          ? null
          : false
        : clean(service, raw) && service.rps / raw.rps >= FLOOR_THROUGHPUT_RATIO && service.nodeCpuMsPerRequest <= FLOOR_NODE_CPU_MS,
      notes: errorNotes(['service', service], ['raw', raw]),
    });
  }
  return rows;
}
