import { type Task } from '../load-runner';
import { BENCH_SEED, pickIndex, seededRandom } from '../seeded';
import { newRecallEventId, queryFingerprint, RECALL_CONTRACT_VERSION } from '../../src/recall-events/recall-event.checks';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';

const RECALL_MEMORY = `query($s: ID!, $q: String!) {
  recallMemory(spaceId: $s, query: $q, limit: 5) { recallEventId results { ref { id rank } score line } degradations }
}`;
/** Issue 40: the search at 1M snapshots, p50 at one client, against the same statement sent raw. */
const LATENCY_RATIO = 2;
/** Words of the seeded payloads, from rare (a city) to common (a word of every fifth row). */
const QUERIES = ['Oslo', 'churn_rate', 'Tallinn weather', 'ledger forecast', 'pro Grace'];

/**
 * The statement the service runs, written out: the ranked search as the `tool_results_search`
 * function's body (a function of its own, run as the owner so that the words use the GIN index)
 * and the recall event's insert, in one CTE.
 */
const RAW_SEARCH_AND_RECORD = `with hits as (
    select r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
           r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
           to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key, r.tool_input,
           ts_rank(r.search_vector, q.query) as score,
           row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
      from message_tool_results r
      join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
      cross join websearch_to_tsquery('simple', $1) as q(query)
     where r.team_id = $4 and r.user_id = $2 and c.space_id = $3 and r.search_vector @@ q.query
     order by rank
     limit 5),
  recorded as (
    insert into recall_events (team_id, id, profile_id, query_fingerprint, contract_version, ranking_version, degraded_branches, source,
                               space_id, space_generation, results)
    select $4, $5, $2, $6, $7, 'raw', '[]'::jsonb, 'INTERNAL', $3, 1,
           coalesce(jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb)
      from hits h returning id)
  select hits.* from hits order by hits.rank`;

/**
 * recallMemory (R-RC-8, R-RC-9) over the user's ~2,000 snapshots of a 1M-row table, against the
 * statement the service runs — the ranked search and the recall event's insert in one CTE — written
 * out and sent raw through `pg`.
 */
export async function recallMemoryOps(ctx: BenchContext): Promise<ResultRow[]> {
  return [await measure(ctx, 1), await measure(ctx, ctx.settings.concurrency)];
}

async function measure(ctx: BenchContext, concurrency: number): Promise<ResultRow> {
  const { data } = ctx;
  const rawRandom = seededRandom(BENCH_SEED + 31);
  const rawTask: Task = async () => {
    const u = pickIndex(rawRandom, data.users);
    const query = QUERIES[pickIndex(rawRandom, QUERIES.length)];
    const params = [
      query,
      data.userIds[u],
      data.spaceId,
      data.teamId,
      newRecallEventId(),
      queryFingerprint(query),
      RECALL_CONTRACT_VERSION,
    ];
    const result = await ctx.raw.query(RAW_SEARCH_AND_RECORD, params);
    if (result.rowCount === 0) throw new Error(`raw: no hits for ${query}`);
  };
  const serviceRandom = seededRandom(BENCH_SEED + 31);
  const serviceTask: Task = async () => {
    const u = pickIndex(serviceRandom, data.users);
    const query = QUERIES[pickIndex(serviceRandom, QUERIES.length)];
    const result = await ctx.service.call<{ recallMemory: { results: unknown[]; degradations: string[] } }>(
      RECALL_MEMORY,
      { s: data.spaceId, q: query },
      ctx.tokens[u],
    );
    if (result.recallMemory.results.length === 0 || result.recallMemory.degradations.length > 0)
      throw new Error(`service: no hits or degraded for ${query}`);
  };

  const op = `recallMemory (${QUERIES.length} queries, ~${Math.round(data.snapshots / data.users)} snapshots a user)`;
  const { raw, service } = await measureSideBySide(
    ctx,
    `${op} c=${concurrency}`,
    rawTask,
    serviceTask,
    loadOptions(ctx.settings, concurrency),
  );
  const notes = errorNotes(['service', service], ['raw', raw]);
  if (concurrency > 1)
    return {
      op,
      concurrency,
      service,
      raw,
      ratio: service.rps / raw.rps,
      ratioBasis: 'throughput',
      target: 'info',
      pass: clean(service, raw) ? null : false,
      notes,
    };
  return {
    op,
    concurrency,
    service,
    raw,
    ratio: service.p50 / raw.p50,
    ratioBasis: 'p50 latency',
    target: `≤ ${LATENCY_RATIO}× raw`,
    pass: clean(service, raw) && service.p50 / raw.p50 <= LATENCY_RATIO,
    notes,
  };
}
