import { type Task } from '../load-runner';
import { newRecallEventId, RECALL_CONTRACT_VERSION } from '../../src/recall-events/recall-event.checks';
import { BENCH_SEED, pickIndex, seededRandom } from '../seeded';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';

const RECALL_BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { text tokens injected droppedCount lines { memId } } }`;

/**
 * The block's rows, read the way the service reads them: the K newest of the conversation, scoped
 * to the user and the allowed spaces, with the stored summary and the call's input (never the output).
 */
const TOP_K = `select r.id, r.mem_id, c.space_id, r.tool_name, r.tool_input, r.summary_oneliner, r.created_at
  from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
 where r.team_id = $4 and r.conversation_id = $1 and r.user_id = $2 and c.space_id = any($3::uuid[]) and c.user_id = $2
 order by r.created_at desc, r.id desc
 limit 5`;
/** Then the recall event of what was shown (R-RC-9), as the service stores it. */
const EVENT = `insert into recall_events (team_id, id, profile_id, space_id, space_generation, contract_version, ranking_version, fusion_mode, source, results)
  values ($1, $2, $3, $4, 1, $5, 'recency-v1', 'single', 'INTERNAL', $6::jsonb)`;

const P99_TARGET_MS = 10;
const LATENCY_RATIO = 3;
/** Issue 25's bar at 16 clients. */
const THROUGHPUT_RATIO = 0.5;

/**
 * recallBlock of a random conversation (with its owner's token) against the raw top-5 SELECT and
 * the recall event's INSERT.
 * Latency is judged at concurrency 1, throughput at 16 (issue 25).
 */
export async function recallBlockOps(ctx: BenchContext): Promise<ResultRow[]> {
  return [await measure(ctx, 1), await measure(ctx, ctx.settings.concurrency)];
}

async function measure(ctx: BenchContext, concurrency: number): Promise<ResultRow> {
  const { data } = ctx;
  const rawRandom = seededRandom(BENCH_SEED + 21);
  const rawTask: Task = async () => {
    const c = pickIndex(rawRandom, data.conversations);
    const result = await ctx.raw.query<{ id: string }>(TOP_K, [data.conversationIds[c], data.ownerOf(c), [data.spaceId], data.teamId]);
    if (result.rowCount === 0) throw new Error('raw: no rows');
    const refs = result.rows.map((row, index) => ({ type: 'TOOL_RESULT', id: row.id, rank: index + 1 }));
    await ctx.raw.query(EVENT, [
      data.teamId,
      newRecallEventId(),
      data.ownerOf(c),
      data.spaceId,
      RECALL_CONTRACT_VERSION,
      JSON.stringify(refs),
    ]);
  };
  const serviceRandom = seededRandom(BENCH_SEED + 21);
  const serviceTask: Task = async () => {
    const c = pickIndex(serviceRandom, data.conversations);
    const result = await ctx.service.call<{ recallBlock: { injected: boolean } }>(
      RECALL_BLOCK,
      { c: data.conversationIds[c] },
      ctx.tokens[c % data.users],
    );
    if (!result.recallBlock.injected) throw new Error('service: empty block');
  };

  const op = `recallBlock (top 5 of ~${Math.round(data.snapshots / data.conversations)})`;
  const options = loadOptions(ctx.settings, concurrency);
  const { raw, service } = await measureSideBySide(ctx, `${op} c=${concurrency}`, rawTask, serviceTask, options);
  const ratio = service.p50 / raw.p50;
  const notes = errorNotes(['service', service], ['raw', raw]);
  if (concurrency > 1) {
    notes.push(`at ${concurrency} clients latency is mostly queueing; the latency targets are judged at 1`);
    const throughput = service.rps / raw.rps;
    const target = `≥ ${THROUGHPUT_RATIO}× raw rps`;
    return {
      op,
      concurrency,
      service,
      raw,
      ratio: throughput,
      ratioBasis: 'throughput',
      target,
      pass: clean(service, raw) && throughput >= THROUGHPUT_RATIO,
      notes,
    };
  }
  const pass = clean(service, raw) && service.p99 <= P99_TARGET_MS && ratio <= LATENCY_RATIO;
  return {
    op,
    concurrency,
    service,
    raw,
    ratio,
    ratioBasis: 'p50 latency',
    target: `p99 ≤ ${P99_TARGET_MS} ms; ≤ ${LATENCY_RATIO}× raw`,
    pass,
    notes,
  };
}
