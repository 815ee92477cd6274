import { type Task } from '../load-runner';
import { BENCH_JWT_SECRET } from '../harness';
import { signToken } from '../../src/tenancy/token-signer';
import { newFeedbackEventId } from '../../src/feedback/feedback.service';
import { newRecallEventId, RECALL_CONTRACT_VERSION } from '../../src/recall-events/recall-event.checks';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';

const SUBMIT = `mutation($input: RecallFeedbackBatchInput!) {
  submitRecallFeedback(input: $input) { recordedCount error { failedIndex code } }
}`;
const ITEMS = 50;
const P99_TARGET_MS = 150;
/** Recall events to judge, each with a few refs; a batch names 50 of them. */
const EVENTS = 500;

/** The raw side's insert: the service's columns, one statement (and so one commit) an item. */
const INSERT = `insert into feedback_events (team_id, id, recall_event_id, profile_id, actor_id, space_id, space_generation, query_fingerprint,
   contract_version, ranking_version, fusion_mode, search_freshness, degraded_branches, returned_refs, used, answer_supported, quality,
   missing_context, irrelevant, feedback_comment, irrelevant_result_refs, hypothesis_feedback, client_feedback_id)
 values ($1, $2, $3, $4, $4, $5, 1, null, $6, 'raw', 'single', 'synchronous', '[]', $7::jsonb, true, true, 'HIGH', false, true,
         'one result was off topic', $8::jsonb, '[]', null)`;
const LOAD_EVENTS = `select id, results from recall_events where team_id = $1 and id = any($2::text[])`;

/**
 * submitRecallFeedback with 50 valid items (docs/requirements.md §9: p99 ≤ 150 ms), at concurrency 1 and 8,
 * against the raw SQL the service needs: read the 50 recall events, then 50 inserts, each its
 * own commit.
 */
export async function submitFeedbackOps(ctx: BenchContext): Promise<ResultRow[]> {
  const { data } = ctx;
  const userId = data.userIds[0];
  // Through the API: it also clears the service's flag cache.
  const admin = await signToken({ userId, teamId: data.teamId, scopes: ['admin'], secret: BENCH_JWT_SECRET, expiresInSeconds: 3600 });
  await ctx.service.call(`mutation { setFeatureFlag(key: "recall_feedback_enabled", enabled: true) { enabled } }`, {}, admin);
  const events = Array.from({ length: EVENTS }, () => newRecallEventId());
  const refs = (i: number) => JSON.stringify([1, 2, 3].map((rank) => ({ type: 'EVIDENCE', id: `ev_${i}_${rank}`, rank })));
  for (const [i, id] of events.entries()) {
    await ctx.raw.query(
      `insert into recall_events (team_id, id, profile_id, space_id, space_generation, contract_version, source, results)
       values ($1, $2, $3, $4, 1, $5, 'EXTERNAL', $6::jsonb)`,
      [data.teamId, id, userId, data.spaceId, RECALL_CONTRACT_VERSION, refs(i)],
    );
  }
  const token = await signToken({
    userId,
    teamId: data.teamId,
    scopes: ['feedback:write'],
    secret: BENCH_JWT_SECRET,
    expiresInSeconds: 3 * 3600,
  });
  const batch = (seq: number) =>
    Array.from({ length: ITEMS }, (_, i) => {
      const e = (seq * ITEMS + i) % EVENTS;
      return {
        recallEventId: events[e],
        used: true,
        answerSupported: true,
        quality: 'HIGH',
        missingContext: false,
        irrelevant: true,
        feedbackComment: 'one result was off topic',
        irrelevantResultRefs: [{ type: 'EVIDENCE', id: `ev_${e}_2`, rank: 2 }],
      };
    });
  return [await measure(ctx, 1, token, events, batch), await measure(ctx, 8, token, events, batch)];
}

async function measure(
  ctx: BenchContext,
  concurrency: number,
  token: string,
  events: string[],
  batch: (seq: number) => { recallEventId: string; irrelevantResultRefs: unknown }[],
): Promise<ResultRow> {
  const { data } = ctx;
  const userId = data.userIds[0];
  const rawTask: Task = async (worker, seq) => {
    const items = batch(seq + worker * 1000);
    const loaded = await ctx.raw.query<{ id: string; results: unknown }>(LOAD_EVENTS, [data.teamId, items.map((i) => i.recallEventId)]);
    const results = new Map(loaded.rows.map((r) => [r.id, r.results]));
    for (const item of items) {
      await ctx.raw.query(INSERT, [
        data.teamId,
        newFeedbackEventId(),
        item.recallEventId,
        userId,
        data.spaceId,
        RECALL_CONTRACT_VERSION,
        JSON.stringify(results.get(item.recallEventId)),
        JSON.stringify(item.irrelevantResultRefs),
      ]);
    }
  };
  const serviceTask: Task = async (worker, seq) => {
    const result = await ctx.service.call<{ submitRecallFeedback: { recordedCount: number; error: unknown } }>(
      SUBMIT,
      { input: { recalls: batch(seq + worker * 1000) } },
      token,
    );
    if (result.submitRecallFeedback.recordedCount !== ITEMS)
      throw new Error(`service: ${JSON.stringify(result.submitRecallFeedback.error)}`);
  };
  const op = `submitRecallFeedback, ${ITEMS} items`;
  const options = { ...loadOptions(ctx.settings, concurrency), maxRequests: 2_000 };
  const { raw, service } = await measureSideBySide(ctx, `${op} c=${concurrency}`, rawTask, serviceTask, options);
  const notes = errorNotes(['service', service], ['raw', raw]);
  if (concurrency > 1) {
    notes.push(`at ${concurrency} clients latency is mostly queueing on 2 cores; the p99 target is judged at 1`);
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
  }
  const pass = clean(service, raw) && service.p99 <= P99_TARGET_MS;
  return {
    op,
    concurrency,
    service,
    raw,
    ratio: service.p50 / raw.p50,
    ratioBasis: 'p50 latency',
    target: `p99 ≤ ${P99_TARGET_MS} ms`,
    pass,
    notes,
  };
}
