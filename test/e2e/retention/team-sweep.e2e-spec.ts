/**
 * Retention one team at a time (docs/requirements.md §7, issue 20): a team admin's runRetentionSweep deletes and
 * reports only that team's expired rows (R-TN-6, R-RT-6) while the scheduler's sweep covers every
 * team (R-RT-1); conversations with no snapshot left and no activity since the snapshots' cutoff
 * go with their messages, counted like the other tables (R-RT-1, R-RT-5).
 */
import { RetentionSweepService } from '../../../src/retention/retention-sweep.service';
import {
  bulkSnapshots,
  countsOf,
  createRetentionApp,
  feedback,
  metric,
  newTeam,
  recallEvent,
  record,
  scalar,
  sweepOk,
  sweptCounts,
  type Team,
} from './support/retention-fixtures';
import type { TestApp } from '../../support/test-app';

describe('Retention and deletion (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRetentionApp();
  });
  afterAll(() => t.close());

  const age = (table: string, ids: string[], days: number) =>
    t.sql.query(`update ${table} set created_at = now() - $2 * interval '1 day' where id = any($1)`, [ids, days]);
  /** Backdates a conversation, its messages and its snapshots. */
  async function ageConversation(conversationId: string, days: number): Promise<void> {
    await t.sql.query(`update conversations set created_at = now() - $2 * interval '1 day' where id = $1`, [conversationId, days]);
    for (const table of ['messages', 'message_tool_results'])
      await t.sql.query(`update ${table} set created_at = now() - $2 * interval '1 day' where conversation_id = $1`, [
        conversationId,
        days,
      ]);
  }
  const dropSnapshots = (conversationId: string) =>
    t.sql.query(`delete from message_tool_results where conversation_id = $1`, [conversationId]);
  const conversationExists = async (id: string) => (await scalar(t, `select count(*) from conversations where id = $1`, [id])) === 1;

  /** The team's rows by table, as the sweep counts them (feedback_comments: comments not cleared yet). */
  async function teamRows(team: Team): Promise<Record<string, number>> {
    const q = (sql: string) => scalar(t, sql, [team.alice.teamId]);
    return {
      feedback_events: await q(`select count(*) from feedback_events where team_id = $1`),
      feedback_comments: await q(`select count(*) from feedback_events where team_id = $1 and comments_cleared_at is null`),
      recall_events: await q(`select count(*) from recall_events where team_id = $1`),
      message_tool_results: await q(`select count(*) from message_tool_results r join users u on u.id = r.user_id where u.team_id = $1`),
      conversations: await q(`select count(*) from conversations c join spaces s on s.id = c.space_id where s.team_id = $1`),
      messages: await q(
        `select count(*) from messages m join conversations c on c.id = m.conversation_id join spaces s on s.id = c.space_id where s.team_id = $1`,
      ),
    };
  }

  /** A team's rows after a sweep that reported `swept`: a deleted feedback event took its uncleared comment with it. */
  const rowsAfter = (before: Record<string, number>, swept: Record<string, number>) => ({
    ...Object.fromEntries(Object.entries(before).map(([table, n]) => [table, n - swept[table]])),
    feedback_comments: before.feedback_comments - swept.feedback_comments - swept.feedback_events,
  });

  /**
   * `k` expired rows of every kind in the team, besides fresh ones: snapshots past 180 days (3k,
   * plus one in each of k idle conversations), recall events past 90 days, feedback past 365
   * days, comments past 90 days. Returns what the team's sweep must report.
   */
  async function seedExpired(team: Team, k: number): Promise<Record<string, number>> {
    const { alice, bob } = team;
    await bulkSnapshots(t, alice, k === 1 ? 'p' : 'q', 3 * k, 181);
    for (let i = 0; i < k; i += 1) {
      const conversationId = crypto.randomUUID();
      await record(t, bob, conversationId);
      await ageConversation(conversationId, 200);
      const expiredEvent = await recallEvent(t, alice);
      await age('recall_events', [expiredEvent], 100);
      const oldFeedback = await feedback(t, alice, await recallEvent(t, alice), 'Old news.');
      await age('feedback_events', [oldFeedback], 400);
      const commented = await feedback(t, bob, await recallEvent(t, bob), 'A comment past 90 days.');
      await age('feedback_events', [commented], 100);
    }
    return { feedback_events: k, feedback_comments: k, recall_events: k, message_tool_results: 4 * k, conversations: k, messages: k };
  }

  it("R-TN-6 R-RT-6 R-RT-1 team A's admin sweep deletes none of team B's expired rows and reports only A's; the scheduler's sweep deletes B's", async () => {
    const a = await newTeam(t);
    const b = await newTeam(t);
    const expectedA = await seedExpired(a, 1);
    const expectedB = await seedExpired(b, 2);
    const bBefore = await teamRows(b);
    const aBefore = await teamRows(a);

    const report = await sweepOk(t, a.admin);
    expect(report.skipped).toBe(false);
    // A's counts exactly (B seeded twice as many of each, so a leak would show).
    expect(countsOf(report.deleted)).toEqual(sweptCounts(expectedA));
    expect(await teamRows(a)).toEqual(rowsAfter(aBefore, expectedA));
    // Every row of B is still there, expired or not.
    expect(await teamRows(b)).toEqual(bBefore);

    // B's admin sweeping now would find B's; the scheduler's sweep of every team does the same.
    const all = await t.app.get(RetentionSweepService).sweep();
    expect(all.skipped).toBe(false);
    expect(countsOf(all.deleted)).toEqual(sweptCounts(expectedB));
    expect(await teamRows(b)).toEqual(rowsAfter(bBefore, expectedB));
    // Nothing expired is left in either team: a second sweep of each finds nothing.
    expect(countsOf((await sweepOk(t, a.admin)).deleted)).toEqual(sweptCounts({}));
    expect(countsOf((await sweepOk(t, b.admin)).deleted)).toEqual(sweptCounts({}));
  });

  it('R-RT-1 R-RT-5 R-RT-6 a conversation with no snapshot left and no activity within the retention goes with its messages; one with a recent message or snapshot, or itself recent, stays', async () => {
    const { admin, alice, bob } = await newTeam(t);
    const conversation = async (who = alice, snapshots = 1) => {
      const id = crypto.randomUUID();
      await record(t, who, id, snapshots);
      return id;
    };
    // Its two snapshots expire in this sweep, then it goes (two messages).
    const expiring = await conversation(alice, 2);
    await ageConversation(expiring, 200);
    // Its snapshot was deleted long ago (e.g. by the per-conversation cap); old, quiet: goes.
    const empty = await conversation(bob);
    await dropSnapshots(empty);
    await ageConversation(empty, 200);
    // Old, no snapshot, but a message within the retention: stays.
    const recentMessage = await conversation();
    await dropSnapshots(recentMessage);
    await ageConversation(recentMessage, 200);
    await t.sql.query(`update messages set created_at = now() - interval '10 days' where conversation_id = $1`, [recentMessage]);
    // Old, but a recent snapshot: stays.
    const recentSnapshot = await conversation();
    await ageConversation(recentSnapshot, 200);
    await t.sql.query(`update message_tool_results set created_at = now() - interval '1 day' where conversation_id = $1`, [recentSnapshot]);
    // No snapshot, but created within the retention: stays.
    const young = await conversation();
    await dropSnapshots(young);
    const metricsBefore = {
      conversations: await metric(t, 'conversations_retention_deletes_total'),
      messages: await metric(t, 'messages_retention_deletes_total'),
    };

    const report = await sweepOk(t, admin);
    expect(report.skipped).toBe(false);
    expect(countsOf(report.deleted)).toEqual(sweptCounts({ message_tool_results: 2, conversations: 2, messages: 3 }));
    expect({
      expiring: await conversationExists(expiring),
      empty: await conversationExists(empty),
      recentMessage: await conversationExists(recentMessage),
      recentSnapshot: await conversationExists(recentSnapshot),
      young: await conversationExists(young),
    }).toEqual({ expiring: false, empty: false, recentMessage: true, recentSnapshot: true, young: true });
    expect(await scalar(t, `select count(*) from messages where conversation_id = any($1)`, [[expiring, empty]])).toBe(0);
    expect(await scalar(t, `select count(*) from messages where conversation_id = any($1)`, [[recentMessage, recentSnapshot, young]])).toBe(
      3,
    );
    expect(await metric(t, 'conversations_retention_deletes_total')).toBe(metricsBefore.conversations + 2);
    expect(await metric(t, 'messages_retention_deletes_total')).toBe(metricsBefore.messages + 3);

    // The kept ones stay on the next sweep; writing into a swept conversation's id starts it anew.
    expect(countsOf((await sweepOk(t, admin)).deleted)).toEqual(sweptCounts({}));
    await record(t, alice, expiring);
    expect(await conversationExists(expiring)).toBe(true);
  });
});
