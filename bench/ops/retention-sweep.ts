import { randomUUID } from 'node:crypto';
import { BENCH_JWT_SECRET } from '../harness';
import { signToken } from '../../src/tenancy/token-signer';
import type { LoadResult } from '../load-runner';
import { type BenchContext, type ResultRow } from './context';

const SWEEP = `mutation { runRetentionSweep { skipped durationMs deleted { table count } } }`;
const RECORD = `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { createdCount } }`;
/** The sweep's batch size as the service reads it (RETENTION_BATCH_SIZE), so both sides run the same batches. */
const BATCH = Number(process.env.RETENTION_BATCH_SIZE ?? 5000);
const RATE_TARGET = 50_000;
const WRITER_RATIO = 2;
const RAW_RATIO = 0.8;
const IDLE_MS = 5000;

/** The sweep's own statement (ToolResultDeletionRepository.deleteExpiredBatch, one team's), sent raw. */
const RAW_BATCH = `with done as (delete from message_tool_results where ctid = any(array(
  select ctid from message_tool_results where team_id = $3 and created_at < $1 order by created_at limit $2)) returning 1) select count(*)::int as n from done`;

/**
 * A retention sweep of expired snapshots (docs/requirements.md §9: ≥ 50k rows/s, issue 25: ≥ 0.8× the raw
 * batches; a concurrent writer's p99 ≤ 2× idle). The data set is aged past 180 days; the raw side
 * deletes the older half with the very batch statement the sweep runs (each its own transaction),
 * the service's runRetentionSweep the rest, each while a writer records tool results; the writer's
 * p99 during the service's sweep is set beside its p99 idle.
 */
export async function retentionSweepOps(ctx: BenchContext): Promise<ResultRow[]> {
  const { data } = ctx;
  const admin = await signToken({
    userId: data.userIds[0],
    teamId: data.teamId,
    scopes: ['admin'],
    secret: BENCH_JWT_SECRET,
    expiresInSeconds: 3600,
  });
  ctx.log('  ageing every snapshot past the 180-day retention…');
  await ctx.raw.query(`update message_tool_results set created_at = created_at - interval '200 days'`);
  await ctx.raw.query('vacuum analyze message_tool_results');
  const total = Number(
    (await ctx.raw.query<{ n: string }>(`select count(*) as n from message_tool_results where created_at < now() - interval '180 days'`))
      .rows[0].n,
  );
  const cutoffOfHalf = (
    await ctx.raw.query<{ at: string }>(`select created_at as at from message_tool_results order by created_at offset $1 limit 1`, [
      Math.floor(total / 2),
    ])
  ).rows[0].at;

  const writer = async (stop: () => boolean): Promise<LoadResult> => {
    const latencies: number[] = [];
    let errors = 0;
    const started = performance.now();
    while (!stop()) {
      const c = Math.floor(Math.random() * data.conversations);
      const input = [
        {
          spaceId: data.spaceId,
          conversationId: data.conversationIds[c],
          messageId: data.messageIds[c],
          toolUseId: `toolu_sweep_${randomUUID()}`,
          toolName: 'get_weather',
          toolInput: { city: 'Oslo' },
          toolOutput: { days: [{ high_c: 3 }] },
        },
      ];
      const t0 = performance.now();
      try {
        await ctx.service.call(RECORD, { input }, ctx.tokens[c % data.users]);
        latencies.push(performance.now() - t0);
      } catch {
        errors += 1;
      }
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    const elapsedMs = performance.now() - started;
    return {
      requests: latencies.length,
      errors,
      elapsedMs,
      rps: (latencies.length * 1000) / elapsedMs,
      p50: at(0.5),
      p99: at(0.99),
      nodeCpuMsPerRequest: 0,
      clientCpuMsPerRequest: 0,
      postgresCpuMsPerRequest: 0,
    };
  };

  const idleUntil = performance.now() + IDLE_MS;
  const idle = await writer(() => performance.now() > idleUntil);

  // Raw: the older half, batch by batch. Both sides sweep with the writer running alongside, so
  // the ratio compares the sweeps, not a sweep with a writer against one without.
  let rawSweeping = true;
  const writerDuringRaw = writer(() => !rawSweeping);
  let rawDeleted = 0;
  const rawStarted = performance.now();
  for (;;) {
    const n = (await ctx.raw.query<{ n: number }>(RAW_BATCH, [cutoffOfHalf, BATCH, data.teamId])).rows[0].n;
    rawDeleted += n;
    if (n < BATCH) break;
  }
  const rawMs = performance.now() - rawStarted;
  rawSweeping = false;
  const writerRaw = await writerDuringRaw;

  // The raw batches left half the table's index entries pointing at dead rows, which the service's
  // first batch would walk past; between two hourly sweeps autovacuum clears them, so here too.
  await ctx.raw.query('vacuum message_tool_results');

  // Service: the rest, the same way.
  let sweeping = true;
  const during = writer(() => !sweeping);
  const sweepStarted = performance.now();
  const report = (
    await ctx.service.call<{ runRetentionSweep: { skipped: boolean; deleted: { table: string; count: number }[] } }>(SWEEP, {}, admin)
  ).runRetentionSweep;
  const sweepMs = performance.now() - sweepStarted;
  sweeping = false;
  const writerDuring = await during;
  const serviceDeleted = report.deleted.find((d) => d.table === 'message_tool_results')?.count ?? 0;

  const serviceRate = (serviceDeleted * 1000) / sweepMs;
  const rawRate = (rawDeleted * 1000) / rawMs;
  const writerRatio = writerDuring.p99 / Math.max(idle.p99, 0.001);
  const asLoad = (rows: number, ms: number): LoadResult => ({
    requests: rows,
    errors: 0,
    elapsedMs: ms,
    rps: (rows * 1000) / ms,
    p50: 0,
    p99: 0,
    nodeCpuMsPerRequest: 0,
    clientCpuMsPerRequest: 0,
    postgresCpuMsPerRequest: 0,
  });
  return [
    {
      op: `retention sweep, ${total.toLocaleString('en-US')} expired snapshots (rows/s)`,
      concurrency: 1,
      service: asLoad(serviceDeleted, sweepMs),
      raw: asLoad(rawDeleted, rawMs),
      ratio: serviceRate / rawRate,
      ratioBasis: 'throughput',
      target: `≥ ${RATE_TARGET.toLocaleString('en-US')} rows/s and ≥ ${RAW_RATIO}× raw`,
      pass: !report.skipped && serviceRate >= RATE_TARGET && serviceRate / rawRate >= RAW_RATIO,
      notes: [
        `service ${Math.round(serviceRate).toLocaleString('en-US')} rows/s (${serviceDeleted} rows in ${(sweepMs / 1000).toFixed(1)} s); raw ${Math.round(rawRate).toLocaleString('en-US')} rows/s (${rawDeleted} rows in ${(rawMs / 1000).toFixed(1)} s)`,
        `both with the writer below alongside; its p99 during the raw batches ${writerRaw.p99.toFixed(2)} ms (${writerRaw.requests} calls)`,
      ],
    },
    {
      op: 'recordToolResults writer during the sweep vs idle',
      concurrency: 1,
      service: writerDuring,
      raw: idle,
      ratio: writerRatio,
      ratioBasis: 'p99 latency',
      target: `p99 ≤ ${WRITER_RATIO}× idle`,
      pass: writerDuring.errors === 0 && writerRatio <= WRITER_RATIO,
      notes: [
        `writer p99 ${writerDuring.p99.toFixed(2)} ms during the sweep vs ${idle.p99.toFixed(2)} ms idle (${writerDuring.requests} and ${idle.requests} calls; the raw column is the idle writer)`,
      ],
    },
  ];
}
