/**
 * Retention and deletion through the API (SPEC §7): the tool-result sweep in batches beside a
 * live writer (R-RT-1, R-RT-5), recall and feedback retention (R-RT-3), one sweeper among
 * replicas on one database (R-RT-2), runRetentionSweep (R-RT-6) and deleteUserData (R-RT-4).
 */
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { loadConfig } from '../../src/config/load-config';
import { configureApp } from '../../src/configure-app';
import { createRootLogger } from '../../src/observability/logger';
import { SWEEP_LEASE } from '../../src/retention/retention.repository';
import { RECORD, toolResult, type SpaceMember } from '../support/fixtures';
import { expectErrorCode, gql, type GraphqlTarget, ok } from '../support/graphql';
import { newMember, newSpace, setFlag } from '../support/tenancy';
import { createTestApp, identity, TEST_JWT_SECRET, type TestApp, type TestIdentity } from '../support/test-app';
import { HANDLE_COLUMNS, handleColumns } from '../support/tool-results-service';

const SWEEP = `mutation { runRetentionSweep { skipped deleted { table count } durationMs } }`;
const DELETE_USER = `mutation($u: ID!) { deleteUserData(userId: $u) { userId deleted { table count } } }`;
const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { id } }`;
const RECALL = `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q) { recallEventId results { ref { type id rank } } } }`;
const SUBMIT = `mutation($input: RecallFeedbackBatchInput!) { submitRecallFeedback(input: $input) { recordedCount feedbackEventIds error { code message } } }`;

const FEEDBACK_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];
const RESULTS = [
  { type: 'RELATIONSHIP', id: 'r_ok', rank: 1 },
  { type: 'HYPOTHESIS', id: 'hyp_ok', rank: 2 },
];
const SWEPT_TABLES = ['feedback_events', 'feedback_comments', 'recall_events', 'message_tool_results'];
const USER_TABLES = ['conversations', 'messages', 'message_tool_results', 'recall_events', 'feedback_events', 'space_members', 'users'];

interface TableCount {
  table: string;
  count: number;
}
interface SweepReport {
  skipped: boolean;
  deleted: TableCount[];
  durationMs: number;
}
interface DeletionReport {
  userId: string;
  deleted: TableCount[];
}
/** A team with recall feedback on: its admin and two members of one space. */
interface Team {
  admin: TestIdentity;
  alice: SpaceMember;
  bob: SpaceMember;
}

const countsOf = (deleted: TableCount[]) => Object.fromEntries(deleted.map((d) => [d.table, d.count]));
const sweptCounts = (counts: Partial<Record<string, number>>) => Object.fromEntries(SWEPT_TABLES.map((table) => [table, counts[table] ?? 0]));

describe('Retention and deletion (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ RETENTION_BATCH_SIZE: '5000', HTTP_BODY_LIMIT: '10mb' });
  });
  afterAll(async () => {
    await t.close();
  });

  const sweepAs = (who: TestIdentity) => gql<{ runRetentionSweep: SweepReport }>(t, SWEEP, {}, who.token);
  async function sweepOk(who: TestIdentity, on: GraphqlTarget = t): Promise<SweepReport> {
    return (await ok<{ runRetentionSweep: SweepReport }>(on, SWEEP, {}, who.token)).runRetentionSweep;
  }

  async function newTeam(): Promise<Team> {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin, 'retention');
    const member = async (): Promise<SpaceMember> => ({ ...(await newMember(t, admin, [spaceId], FEEDBACK_SCOPES)), spaceId });
    const alice = await member();
    const bob = await member();
    await setFlag(t, admin, 'recall_feedback_enabled', true);
    return { admin, alice, bob };
  }

  async function recallEvent(who: SpaceMember): Promise<string> {
    const input = { spaceId: who.spaceId, query: 'why does the save button do nothing', contractVersion: 'graph-retriever.v2', results: RESULTS };
    return (await ok<{ recordRecallEvent: { id: string } }>(t, RECORD_EVENT, { input }, who.token)).recordRecallEvent.id;
  }

  async function feedback(who: TestIdentity, recallEventId: string, comment: string | null = null, hypothesisComment: string | null = null): Promise<string> {
    const item = {
      recallEventId,
      used: true,
      answerSupported: true,
      quality: 'HIGH',
      feedbackComment: comment,
      // Left out rather than null: an explicit null list is refused (see the report).
      ...(hypothesisComment === null ? {} : { hypothesisFeedback: [{ hypothesisId: 'hyp_ok', used: true, quality: 'MEDIUM', contradicted: false, feedbackComment: hypothesisComment }] }),
    };
    const payload = (await ok<{ submitRecallFeedback: { recordedCount: number; feedbackEventIds: string[]; error: unknown } }>(t, SUBMIT, { input: { recalls: [item] } }, who.token))
      .submitRecallFeedback;
    expect(payload.error).toBeNull();
    return payload.feedbackEventIds[0];
  }

  async function record(who: SpaceMember, conversationId: string, n = 1): Promise<void> {
    const inputs = Array.from({ length: n }, () => toolResult(who.spaceId, conversationId));
    const res = await ok<{ recordToolResults: { createdCount: number } }>(t, RECORD, { input: inputs }, who.token);
    expect(res.recordToolResults.createdCount).toBe(n);
  }

  const scalar = async (sql: string, params: unknown[] = []) => Number(Object.values((await t.sql.query(sql, params)).rows[0])[0]);
  const snapshotsOf = (userId: string, where = 'true') => scalar(`select count(*) from message_tool_results where user_id = $1 and ${where}`, [userId]);

  /**
   * `n` snapshots of the user, `ageDays` old (one second apart), in one statement: on a
   * conversation and message the write path created first. `tag` keeps tool_use_ids and mem ids apart.
   */
  async function bulkSnapshots(who: SpaceMember, tag: string, n: number, ageDays: number): Promise<void> {
    const conversationId = crypto.randomUUID();
    await record(who, conversationId);
    const { message_id: messageId } = (await t.sql.query(`select message_id from message_tool_results where conversation_id = $1`, [conversationId])).rows[0];
    const handle = handleColumns({ memId: 'mem_aaaaaaaaaaaaaaaa', toolName: 'query_site_data', toolUseId: 'toolu_x', sizeChars: 9, toolInput: {}, toolOutput: { n: 1 } });
    await t.sql.query(
      `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars, ${HANDLE_COLUMNS})
       select gen_random_uuid(), $1, $2, $3, 'query_site_data', '{}'::jsonb, '{"n":1}'::jsonb,
              now() - $4 * interval '1 day' - g * interval '1 second', $5 || g, 'mem_' || $6 || translate(lpad(g::text, 15, '0'), '0123456789', 'abcdefghij'),
              9, $7, $8, $9, $10, $11
         from generate_series(1, $12::int) g`,
      [who.userId, messageId, conversationId, ageDays, `toolu_${tag}_`, tag, ...handle, n],
    );
  }

  async function metric(name: string): Promise<number> {
    const text = (await request(t.app.getHttpServer()).get('/metrics')).text;
    const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    return match === null ? 0 : Number(match[1]);
  }

  describe('the tool-result sweep', () => {
    it('R-RT-1 R-RT-5 R-RT-6 deletes exactly the 12,000 snapshots past 180 days in batches of 5,000, counts them, and a concurrent writer keeps succeeding', async () => {
      const admin = await identity(['admin']);
      const alice = (await newTeam()).alice;
      // Anything expired before this test is gone first, so the numbers below are exact.
      await sweepOk(admin);
      await bulkSnapshots(alice, 'o', 12_000, 181);
      await bulkSnapshots(alice, 'n', 500, 179);
      expect(await snapshotsOf(alice.userId)).toBe(12_502);

      // One row per delete statement on the table, with the rows it deleted.
      await t.sql.query(
        `create table retention_test_deletes (seq serial primary key, rows int not null);
         create function retention_test_count_deletes() returns trigger language plpgsql as $$
           begin insert into retention_test_deletes (rows) select count(*) from old_rows; return null; end $$;
         create trigger retention_test_count after delete on message_tool_results referencing old table as old_rows
           for each statement execute function retention_test_count_deletes();`,
      );
      const before = await metric('tool_results_retention_deletes_total');

      // A writer records one snapshot at a time, each in a conversation of its own, until the sweep is done.
      const writer = { calls: 0, failures: [] as unknown[], slowestMs: 0, duringSweep: 0 };
      let sweeping = true;
      const writing = (async () => {
        while (sweeping) {
          const started = Date.now();
          const res = await gql<{ recordToolResults: { createdCount: number } }>(t, RECORD, { input: [toolResult(alice.spaceId, crypto.randomUUID())] }, alice.token);
          writer.calls += 1;
          if (sweeping) writer.duringSweep += 1;
          writer.slowestMs = Math.max(writer.slowestMs, Date.now() - started);
          if (res.errors || res.data?.recordToolResults.createdCount !== 1) writer.failures.push(res.errors ?? res.data);
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 30));
      const report = await sweepOk(admin).finally(() => {
        sweeping = false;
      });
      await writing;

      expect(report.skipped).toBe(false);
      expect(countsOf(report.deleted)).toEqual(sweptCounts({ message_tool_results: 12_000 }));
      // Batches: 12,000 > 5,000 went in three statements of at most 5,000 rows.
      const statements = (await t.sql.query(`select rows from retention_test_deletes where rows > 0 order by seq`)).rows.map((r) => r.rows);
      expect(statements).toEqual([5000, 5000, 2000]);
      expect(await metric('tool_results_retention_deletes_total')).toBe(before + 12_000);

      expect(writer.failures).toEqual([]);
      expect(writer.duringSweep).toBeGreaterThan(0);
      expect(writer.slowestMs).toBeLessThan(5000);
      // The 500 newer (and the 2 + the writer's fresh ones) remain; none past 180 days does.
      expect(await snapshotsOf(alice.userId, `created_at < now() - interval '180 days'`)).toBe(0);
      expect(await snapshotsOf(alice.userId, `starts_with(tool_use_id, 'toolu_n_')`)).toBe(500);
      expect(await snapshotsOf(alice.userId)).toBe(502 + writer.calls);

      // A second sweep finds nothing; the counter stays.
      const again = await sweepOk(admin);
      expect(countsOf(again.deleted)).toEqual(sweptCounts({}));
      expect(await metric('tool_results_retention_deletes_total')).toBe(before + 12_000);
      await t.sql.query(`drop trigger retention_test_count on message_tool_results; drop function retention_test_count_deletes(); drop table retention_test_deletes;`);
    });

    it('R-RT-6 runRetentionSweep needs the admin scope', async () => {
      const member = await identity(['memory:read', 'memory:write']);
      const res = await sweepAs(member);
      expectErrorCode(res, 'FORBIDDEN');
      expect(res.data?.runRetentionSweep ?? null).toBeNull();
      expectErrorCode(await gql(t, SWEEP, {}), 'UNAUTHENTICATED');
    });
  });

  describe('recall events and feedback', () => {
    it('R-RT-3 R-RT-5 recall events past 90 days go unless feedback references them; comments past 90 days are cleared (rows stay); feedback past 365 days goes', async () => {
      const admin = await identity(['admin']);
      const { alice } = await newTeam();
      const gone = await recallEvent(alice);
      const young = await recallEvent(alice);
      const kept = await recallEvent(alice);
      const fresh = await recallEvent(alice);
      const ancient = await recallEvent(alice);
      const fbKept = await feedback(alice, kept, 'The stale UI relationship misled me.', 'Contradicted by the code.');
      const fbFresh = await feedback(alice, fresh, 'Spot on.', 'Confirmed.');
      const fbAncient = await feedback(alice, ancient, 'Old news.');

      const age = (table: string, ids: string[], days: number) => t.sql.query(`update ${table} set created_at = now() - $2 * interval '1 day' where id = any($1)`, [ids, days]);
      await age('recall_events', [gone, kept], 100);
      await age('recall_events', [young], 80);
      await age('recall_events', [fresh], 10);
      await age('recall_events', [ancient], 400);
      await age('feedback_events', [fbKept], 100);
      await age('feedback_events', [fbFresh], 10);
      await age('feedback_events', [fbAncient], 400);
      const metricsBefore = {
        recall: await metric('recall_events_retention_deletes_total'),
        feedback: await metric('feedback_events_retention_deletes_total'),
        comments: await metric('feedback_comments_retention_cleared_total'),
      };

      const report = await sweepOk(admin);
      expect(report.skipped).toBe(false);
      // The ancient event lost its only feedback first (365 days), then went itself (90 days).
      expect(countsOf(report.deleted)).toEqual(sweptCounts({ feedback_events: 1, feedback_comments: 1, recall_events: 2 }));

      const events = (await t.sql.query(`select id from recall_events where team_id = $1 order by id`, [alice.teamId])).rows.map((r) => r.id);
      expect(events).toEqual([young, kept, fresh].sort());
      const rows = (await t.sql.query(`select id, feedback_comment, hypothesis_feedback, comments_cleared_at, used, quality from feedback_events where team_id = $1`, [alice.teamId])).rows;
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect([...byId.keys()].sort()).toEqual([fbKept, fbFresh].sort());
      // Past 90 days: the texts are gone, the judgment stays.
      expect(byId.get(fbKept)).toMatchObject({
        feedback_comment: null,
        hypothesis_feedback: [{ hypothesisId: 'hyp_ok', used: true, quality: 'MEDIUM', contradicted: false, feedbackComment: null }],
        comments_cleared_at: expect.any(Date),
        used: true,
        quality: 'HIGH',
      });
      expect(byId.get(fbFresh)).toMatchObject({
        feedback_comment: 'Spot on.',
        hypothesis_feedback: [{ hypothesisId: 'hyp_ok', feedbackComment: 'Confirmed.' }],
        comments_cleared_at: null,
      });

      expect(await metric('recall_events_retention_deletes_total')).toBe(metricsBefore.recall + 2);
      expect(await metric('feedback_events_retention_deletes_total')).toBe(metricsBefore.feedback + 1);
      expect(await metric('feedback_comments_retention_cleared_total')).toBe(metricsBefore.comments + 1);

      // Cleared once: the next sweep neither clears nor deletes anything more.
      expect(countsOf((await sweepOk(admin)).deleted)).toEqual(sweptCounts({}));
      expect(await scalar(`select count(*) from feedback_events where team_id = $1`, [alice.teamId])).toBe(2);
    });
  });

  describe('one sweeper among replicas', () => {
    /** Another instance of the service on the same database (as a second replica would be). */
    async function replica(): Promise<{ app: NestExpressApplication }> {
      const config = loadConfig({
        NODE_ENV: 'test',
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
        FEATURE_FLAG_CACHE_TTL_MS: '0',
        RETENTION_ENABLED: 'false',
        RETENTION_BATCH_SIZE: '5000',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      });
      const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config, t.database.url)] }).compile();
      const app = moduleRef.createNestApplication<NestExpressApplication>({ bufferLogs: true });
      configureApp(app, config, createRootLogger(config.logLevel));
      await app.init();
      return { app };
    }

    let replicas: Awaited<ReturnType<typeof replica>>[] = [];
    beforeAll(async () => {
      replicas = [await replica(), await replica()];
    });
    afterAll(async () => {
      for (const r of replicas) await r.app.close();
    });

    const leases = async () => (await t.sql.query(`select name, holder from retention_leases`)).rows;

    it('R-RT-2 three instances sweeping at the same tick: exactly one sweeps, the other two skip, and the expired rows are deleted once', async () => {
      const admin = await identity(['admin']);
      const { alice } = await newTeam();
      await sweepOk(admin);
      await bulkSnapshots(alice, 'c', 3000, 200);
      const events = [await recallEvent(alice), await recallEvent(alice), await recallEvent(alice)];
      await t.sql.query(`update recall_events set created_at = now() - interval '100 days' where id = any($1)`, [events]);
      const counter = await metric('tool_results_retention_deletes_total');

      // The sweeper's snapshot batch waits on a row lock until both others have answered: the tick overlaps for sure.
      const lock = await t.sql.connect();
      try {
        await lock.query('begin');
        await lock.query(`select id from message_tool_results where tool_use_id = 'toolu_c_1' for update`);
        let answered = 0;
        const sweeps = [t, ...replicas].map((instance) =>
          sweepOk(admin, instance).finally(() => {
            answered += 1;
          }),
        );
        for (let waited = 0; answered < 2 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(answered).toBe(2);
        await lock.query('commit');
        const reports = await Promise.all(sweeps);

        const swept = reports.filter((r) => !r.skipped);
        expect(swept).toHaveLength(1);
        expect(countsOf(swept[0].deleted)).toEqual(sweptCounts({ message_tool_results: 3000, recall_events: 3 }));
        expect(reports.filter((r) => r.skipped)).toEqual([
          { skipped: true, deleted: [], durationMs: expect.any(Number) },
          { skipped: true, deleted: [], durationMs: expect.any(Number) },
        ]);
      } finally {
        await lock.query('rollback').catch(() => undefined);
        lock.release();
      }
      expect(await snapshotsOf(alice.userId, `starts_with(tool_use_id, 'toolu_c_')`)).toBe(0);
      expect(await scalar(`select count(*) from recall_events where id = any($1)`, [events])).toBe(0);
      // All three processes share one registry here: 3,000 counted once, not per instance.
      expect(await metric('tool_results_retention_deletes_total')).toBe(counter + 3000);
      expect(await leases()).toEqual([]);
    });

    it('R-RT-2 the lease of a dead holder (expired) is taken over; a live one makes the sweep skip', async () => {
      const admin = await identity(['admin']);
      const { alice } = await newTeam();
      await sweepOk(admin);
      await bulkSnapshots(alice, 'd', 20, 200);

      await t.sql.query(`insert into retention_leases (name, holder, expires_at) values ($1, 'replica-alive', now() + interval '10 minutes')`, [SWEEP_LEASE]);
      for (const instance of [t, ...replicas]) expect(await sweepOk(admin, instance)).toEqual({ skipped: true, deleted: [], durationMs: expect.any(Number) });
      expect(await snapshotsOf(alice.userId, `starts_with(tool_use_id, 'toolu_d_')`)).toBe(20);
      expect(await leases()).toEqual([{ name: SWEEP_LEASE, holder: 'replica-alive' }]);

      // The holder died: its lease ran out.
      await t.sql.query(`update retention_leases set holder = 'replica-dead', expires_at = now() - interval '1 second'`);
      const report = await sweepOk(admin, replicas[0]);
      expect(report.skipped).toBe(false);
      expect(countsOf(report.deleted)).toEqual(sweptCounts({ message_tool_results: 20 }));
      expect(await snapshotsOf(alice.userId, `starts_with(tool_use_id, 'toolu_d_')`)).toBe(0);
      expect(await leases()).toEqual([]);
    });
  });

  describe('deleteUserData', () => {
    /** Rows of a user, by table, as deleteUserData counts them (feedback: authored, or on the user's recalls). */
    async function userRows(userId: string): Promise<Record<string, number>> {
      const q = (sql: string) => scalar(sql, [userId]);
      return {
        conversations: await q(`select count(*) from conversations where user_id = $1`),
        messages: await q(`select count(*) from messages where user_id = $1`),
        message_tool_results: await q(`select count(*) from message_tool_results where user_id = $1`),
        recall_events: await q(`select count(*) from recall_events where profile_id = $1`),
        feedback_events: await q(`select count(*) from feedback_events where actor_id = $1 or profile_id = $1`),
        space_members: await q(`select count(*) from space_members where user_id = $1`),
        users: await q(`select count(*) from users where id = $1`),
      };
    }
    /** Rows that are a user's alone: feedback the user authored on the user's own recalls. */
    async function ownRows(userId: string): Promise<Record<string, number>> {
      return { ...(await userRows(userId)), feedback_events: await scalar(`select count(*) from feedback_events where actor_id = $1 and profile_id = $1`, [userId]) };
    }
    const deleteUser = (admin: TestIdentity, userId: string) => gql<{ deleteUserData: DeletionReport }>(t, DELETE_USER, { u: userId }, admin.token);

    it('R-RT-4 removes the user and everything of theirs, reports exact counts per table, leaves the teammate untouched, and is idempotent', async () => {
      const { admin, alice, bob } = await newTeam();
      // Alice: two conversations (4 snapshots), an internal and an external recall, feedback by her and on her recall by Bob.
      const c1 = crypto.randomUUID();
      await record(alice, c1, 3);
      await record(alice, crypto.randomUUID(), 1);
      const internal = (await ok<{ recallMemory: { recallEventId: string } }>(t, RECALL, { s: alice.spaceId, q: 'recent members' }, alice.token)).recallMemory.recallEventId;
      const aliceRecall = await recallEvent(alice);
      // Bob: a conversation, two recalls, feedback on his own recall, and a recall Alice judged.
      await record(bob, crypto.randomUUID(), 2);
      const bobRecall = await recallEvent(bob);
      const bobJudgedByAlice = await recallEvent(bob);
      await feedback(alice, aliceRecall, 'Alice on her own recall.');
      await feedback(alice, internal);
      await feedback(bob, aliceRecall, 'Bob on Alice’s recall.');
      await feedback(alice, bobJudgedByAlice, 'Alice on Bob’s recall.');
      const bobOwnFeedback = await feedback(bob, bobRecall, 'Bob on his own recall.');

      const alicesBefore = await userRows(alice.userId);
      expect(alicesBefore).toEqual({ conversations: 2, messages: 4, message_tool_results: 4, recall_events: 2, feedback_events: 4, space_members: 1, users: 1 });
      const bobsBefore = await ownRows(bob.userId);
      expect(bobsBefore).toMatchObject({ conversations: 1, messages: 2, message_tool_results: 2, recall_events: 2, feedback_events: 1, space_members: 1, users: 1 });
      const teamBefore = await scalar(`select count(*) from users where team_id = $1`, [alice.teamId]);

      const res = await deleteUser(admin, alice.userId);
      expect(res.errors).toBeUndefined();
      expect(res.data!.deleteUserData.userId).toBe(alice.userId);
      expect(res.data!.deleteUserData.deleted.map((d) => d.table)).toEqual(USER_TABLES);
      expect(countsOf(res.data!.deleteUserData.deleted)).toEqual(alicesBefore);

      // Nothing of Alice's is left in any table; Bob's own rows are all there.
      expect(await userRows(alice.userId)).toEqual(Object.fromEntries(USER_TABLES.map((table) => [table, 0])));
      expect(await scalar(`select count(*) from feedback_events where recall_event_id = any($1)`, [[aliceRecall, internal]])).toBe(0);
      expect(await ownRows(bob.userId)).toEqual(bobsBefore);
      expect(await scalar(`select count(*) from feedback_events where id = $1`, [bobOwnFeedback])).toBe(1);
      expect(await scalar(`select count(*) from recall_events where id = any($1)`, [[bobRecall, bobJudgedByAlice]])).toBe(2);
      expect(await scalar(`select count(*) from users where team_id = $1`, [alice.teamId])).toBe(teamBefore - 1);
      expect(await scalar(`select count(*) from spaces where id = $1`, [alice.spaceId])).toBe(1);

      // Deleting nothing twice is fine.
      const again = await deleteUser(admin, alice.userId);
      expect(again.errors).toBeUndefined();
      expect(again.data!.deleteUserData).toEqual({ userId: alice.userId, deleted: USER_TABLES.map((table) => ({ table, count: 0 })) });
      expect(await ownRows(bob.userId)).toEqual(bobsBefore);
    });

    it('R-RT-4 a user of another team is NOT_FOUND (and untouched); a non-admin is FORBIDDEN; a malformed id is BAD_USER_INPUT', async () => {
      const { admin, alice, bob } = await newTeam();
      const stranger = (await newTeam()).alice;
      await record(stranger, crypto.randomUUID(), 2);
      await record(alice, crypto.randomUUID(), 1);
      const strangerBefore = await userRows(stranger.userId);
      const aliceBefore = await userRows(alice.userId);

      const foreign = await deleteUser(admin, stranger.userId);
      expectErrorCode(foreign, 'NOT_FOUND');
      expect(foreign.data?.deleteUserData ?? null).toBeNull();
      expect(await userRows(stranger.userId)).toEqual(strangerBefore);

      const notAdmin = await gql(t, DELETE_USER, { u: alice.userId }, bob.token);
      expectErrorCode(notAdmin, 'FORBIDDEN');
      expect(await userRows(alice.userId)).toEqual(aliceBefore);

      const malformed = await deleteUser(admin, 'not-a-uuid');
      expectErrorCode(malformed, 'BAD_USER_INPUT');
      expect(await userRows(alice.userId)).toEqual(aliceBefore);
    });
  });
});
