import { type Task } from '../load-runner';
import { BENCH_SEED, pickIndex, seededRandom } from '../seeded';
import { INSERT_COLUMNS, INSERT_PLACEHOLDERS, insertValues } from '../../src/recall/events/recall-event.record';
import { newRecallEventId, queryFingerprint, RECALL_CONTRACT_VERSION } from '../../src/recall/events/recall-event.rules';
import { snapshotSearchStatement } from '../../src/tool-results/snapshot-search';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';

const RECALL_MEMORY = `query($s: ID!, $q: String!) {
  recallMemory(spaceId: $s, query: $q, limit: 5) { recallEventId results { ref { id rank } score line } degradations }
}`;
/** Words of the seeded payloads, from rare (a city) to common (a word of every fifth row). */
const QUERIES = ['Oslo', 'churn_rate', 'Tallinn weather', 'ledger forecast', 'pro Grace'];

/** `?` placeholders (knex) as `$n` (pg), in order. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * recallMemory (R-RC-8, R-RC-9) over the user's ~2,000 snapshots of a 1M-row table, against the
 * very statement the service runs — the ranked search and the recall event's insert in one CTE —
 * sent raw through `pg`.
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
    const search = snapshotSearchStatement({ userId: data.userIds[u], spaceIds: [data.spaceId] }, { spaceId: data.spaceId, query, limit: 5 }, { input: true });
    const event = {
      id: newRecallEventId(), teamId: data.teamId, profileId: data.userIds[u], spaceId: data.spaceId, spaceGeneration: 1,
      queryFingerprint: queryFingerprint(query), queryText: null, contractVersion: RECALL_CONTRACT_VERSION, rankingVersion: 'raw',
      fusionMode: null, searchFreshness: null, degradedBranches: [], results: [], semanticGroups: null, authoredAlternatives: null,
      clarificationOutcome: null, source: 'INTERNAL',
    };
    const refs = `coalesce(jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb)`;
    const sql = `with hits as (${search.sql}),
      recorded as (insert into recall_events ${INSERT_COLUMNS} select ${INSERT_PLACEHOLDERS}, ${refs} from hits h returning id)
      select hits.* from hits order by hits.rank`;
    const result = await ctx.raw.query(numbered(sql), [...search.params, ...insertValues(event)]);
    if (result.rowCount === 0) throw new Error(`raw: no hits for ${query}`);
  };
  const serviceRandom = seededRandom(BENCH_SEED + 31);
  const serviceTask: Task = async () => {
    const u = pickIndex(serviceRandom, data.users);
    const query = QUERIES[pickIndex(serviceRandom, QUERIES.length)];
    const result = await ctx.service.call<{ recallMemory: { results: unknown[]; degradations: string[] } }>(RECALL_MEMORY, { s: data.spaceId, q: query }, ctx.tokens[u]);
    if (result.recallMemory.results.length === 0 || result.recallMemory.degradations.length > 0) throw new Error(`service: no hits or degraded for ${query}`);
  };

  const op = `recallMemory (${QUERIES.length} queries, ~${Math.round(data.snapshots / data.users)} snapshots a user)`;
  const { raw, service } = await measureSideBySide(ctx, `${op} c=${concurrency}`, rawTask, serviceTask, loadOptions(ctx.settings, concurrency));
  const notes = errorNotes(['service', service], ['raw', raw]);
  if (concurrency > 1) return { op, concurrency, service, raw, ratio: service.rps / raw.rps, ratioBasis: 'throughput', target: 'info', pass: clean(service, raw) ? null : false, notes };
  return { op, concurrency, service, raw, ratio: service.p50 / raw.p50, ratioBasis: 'p50 latency', target: 'info (no SPEC §9 target)', pass: clean(service, raw) ? null : false, notes };
}
