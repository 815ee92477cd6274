/** Set-up the retention e2e files share: the sweep, teams with feedback on, their rows, old rows in bulk. */
import request from 'supertest';
import { RECORD, toolResult, type SpaceMember } from '../../../support/fixtures';
import { gql, ok, type GraphqlTarget } from '../../../support/graphql';
import { newMember, newSpace, setFlag } from '../../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../../support/test-app';
import { HANDLE_COLUMNS, handleColumns } from '../../../support/tool-results-service';

export const SWEEP = `mutation { runRetentionSweep { skipped deleted { table count } durationMs } }`;
const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { id } }`;
const SUBMIT = `mutation($input: RecallFeedbackBatchInput!) { submitRecallFeedback(input: $input) { recordedCount feedbackEventIds error { code message } } }`;

const FEEDBACK_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];
const RESULTS = [
  { type: 'RELATIONSHIP', id: 'r_ok', rank: 1 },
  { type: 'HYPOTHESIS', id: 'hyp_ok', rank: 2 },
];
const SWEPT_TABLES = ['feedback_events', 'feedback_comments', 'recall_events', 'message_tool_results', 'conversations', 'messages'];

/** Sweeps delete in batches of this many rows. */
export const RETENTION_BATCH_SIZE = '5000';

/** The app every retention e2e file runs against, on a database of its own. */
export function createRetentionApp(): Promise<TestApp> {
  return createTestApp({ RETENTION_BATCH_SIZE, HTTP_BODY_LIMIT: '10mb' });
}

export interface TableCount {
  table: string;
  count: number;
}
export interface SweepReport {
  skipped: boolean;
  deleted: TableCount[];
  durationMs: number;
}

export const countsOf = (deleted: TableCount[]) => Object.fromEntries(deleted.map((d) => [d.table, d.count]));
/** What a sweep reports for every table it sweeps, 0 where `counts` says nothing. */
export const sweptCounts = (counts: Partial<Record<string, number>>) =>
  Object.fromEntries(SWEPT_TABLES.map((table) => [table, counts[table] ?? 0]));

export const sweepAs = (t: TestApp, who: TestIdentity) => gql<{ runRetentionSweep: SweepReport }>(t, SWEEP, {}, who.token);
export async function sweepOk(t: GraphqlTarget, who: TestIdentity): Promise<SweepReport> {
  return (await ok<{ runRetentionSweep: SweepReport }>(t, SWEEP, {}, who.token)).runRetentionSweep;
}

/** A team with recall feedback on: its admin and two members of one space. */
export interface Team {
  admin: TestIdentity;
  alice: SpaceMember;
  bob: SpaceMember;
}

export async function newTeam(t: TestApp): Promise<Team> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(t, admin, 'retention');
  const member = async (): Promise<SpaceMember> => ({ ...(await newMember(t, admin, [spaceId], FEEDBACK_SCOPES)), spaceId });
  const alice = await member();
  const bob = await member();
  await setFlag(t, admin, 'recall_feedback_enabled', true);
  return { admin, alice, bob };
}

export async function recallEvent(t: TestApp, who: SpaceMember): Promise<string> {
  const input = {
    spaceId: who.spaceId,
    query: 'why does the save button do nothing',
    contractVersion: 'graph-retriever.v2',
    results: RESULTS,
  };
  return (await ok<{ recordRecallEvent: { id: string } }>(t, RECORD_EVENT, { input }, who.token)).recordRecallEvent.id;
}

export async function feedback(
  t: TestApp,
  who: TestIdentity,
  recallEventId: string,
  comment: string | null = null,
  hypothesisComment: string | null = null,
): Promise<string> {
  const item = {
    recallEventId,
    used: true,
    answerSupported: true,
    quality: 'HIGH',
    feedbackComment: comment,
    // Left out rather than null: an explicit null list is refused (see the report).
    ...(hypothesisComment === null
      ? {}
      : {
          hypothesisFeedback: [
            { hypothesisId: 'hyp_ok', used: true, quality: 'MEDIUM', contradicted: false, feedbackComment: hypothesisComment },
          ],
        }),
  };
  const payload = (
    await ok<{ submitRecallFeedback: { recordedCount: number; feedbackEventIds: string[]; error: unknown } }>(
      t,
      SUBMIT,
      { input: { recalls: [item] } },
      who.token,
    )
  ).submitRecallFeedback;
  expect(payload.error).toBeNull();
  return payload.feedbackEventIds[0];
}

/**
 * A teammate's judgment of `who`'s recall as databases kept it from before members judged only
 * their own recalls (R-TN-8): written by the recall's owner, then given the teammate as its author.
 */
export async function teammateFeedback(
  t: TestApp,
  owner: TestIdentity,
  teammate: TestIdentity,
  recallEventId: string,
  comment: string,
): Promise<string> {
  const id = await feedback(t, owner, recallEventId, comment);
  await t.sql.query(`update feedback_events set actor_id = $2 where id = $1`, [id, teammate.userId]);
  return id;
}

export async function record(t: TestApp, who: SpaceMember, conversationId: string, n = 1): Promise<void> {
  const inputs = Array.from({ length: n }, () => toolResult(who.spaceId, conversationId));
  const res = await ok<{ recordToolResults: { createdCount: number } }>(t, RECORD, { input: inputs }, who.token);
  expect(res.recordToolResults.createdCount).toBe(n);
}

/** The one value of a one-row, one-column query, as a number (counts). */
export const scalar = async (t: TestApp, sql: string, params: unknown[] = []) =>
  Number(Object.values((await t.sql.query(sql, params)).rows[0])[0]);
export const snapshotsOf = (t: TestApp, userId: string, where = 'true') =>
  scalar(t, `select count(*) from message_tool_results where user_id = $1 and ${where}`, [userId]);

/**
 * `n` snapshots of the user, `ageDays` old (one second apart), in one statement: on a
 * conversation and message the write path created first. `tag` keeps tool_use_ids and mem ids apart.
 */
export async function bulkSnapshots(t: TestApp, who: SpaceMember, tag: string, n: number, ageDays: number): Promise<void> {
  const conversationId = crypto.randomUUID();
  await record(t, who, conversationId);
  const { message_id: messageId } = (
    await t.sql.query(`select message_id from message_tool_results where conversation_id = $1`, [conversationId])
  ).rows[0];
  const handle = handleColumns({
    memId: 'mem_aaaaaaaaaaaaaaaa',
    toolName: 'query_site_data',
    toolUseId: 'toolu_x',
    sizeChars: 9,
    toolInput: {},
    toolOutput: { n: 1 },
  });
  await t.sql.query(
    `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars, ${HANDLE_COLUMNS},
                                       team_id, space_generation)
     select gen_random_uuid(), $1, $2, $3, 'query_site_data', '{}'::jsonb, '{"n":1}'::jsonb,
            now() - $4 * interval '1 day' - g * interval '1 second', $5 || g, 'mem_' || $6 || translate(lpad(g::text, 15, '0'), '0123456789', 'abcdefghij'),
            9, $7, $8, $9, $10, $11, s.team_id, s.generation
       from generate_series(1, $12::int) g, conversations c join spaces s on s.id = c.space_id
      where c.id = $3`,
    [who.userId, messageId, conversationId, ageDays, `toolu_${tag}_`, tag, ...handle, n],
  );
}

/** An unlabelled counter's value on /metrics (0 before its first increment). */
export async function metric(t: TestApp, name: string): Promise<number> {
  const text = (await request(t.app.getHttpServer()).get('/metrics')).text;
  const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  return match === null ? 0 : Number(match[1]);
}
