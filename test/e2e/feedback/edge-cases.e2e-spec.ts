/**
 * Recall feedback's edge cases through the API (issue 20): a clientFeedbackId reused with other
 * content (R-FB-5), a too-long comment as the item's own failure (R-FB-3), and transient database
 * faults, made real by locks held on another connection, as RETRY_FROM_FAILED at the first
 * unrecorded item (R-FB-2).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolClient } from 'pg';
import { withTenantScope } from '../../../src/database/tenant-scope';
import { FeedbackService } from '../../../src/feedback';
import type { FeedbackInput } from '../../support/feedback-api';
import {
  createFeedbackApp,
  expectStopped,
  fine,
  newTeam,
  recallEvents,
  rowsFor,
  STATEMENT_TIMEOUT_MS,
  submit,
  submitOk,
  teamRows,
} from '../../support/feedback-fixtures';
import type { TestApp } from '../../support/test-app';

describe('Recall feedback edge cases (e2e)', () => {
  let t: TestApp;
  let locker: PoolClient | undefined;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterEach(async () => {
    await locker?.query('rollback').catch(() => undefined);
    locker?.release();
    locker = undefined;
  });
  afterAll(() => t.close());

  /** A transaction on a connection of its own, holding what `lock` takes until afterEach or `unlock`. */
  async function hold(lock: string, params: unknown[] = []): Promise<void> {
    locker = await t.sql.connect();
    await locker.query('begin');
    await locker.query(lock, params);
  }
  async function unlock(): Promise<void> {
    await locker!.query('rollback');
    locker!.release();
    locker = undefined;
  }

  /** The service's backend waiting on a lock in a statement that names `table`; its pid. */
  async function lockWaiter(table: string, timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await t.sql.query<{ pid: number }>(
        `select pid from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid() and query ilike $1`,
        [`%${table}%`],
      );
      if (rows.length > 0) return rows[0].pid;
      if (Date.now() > deadline) throw new Error(`no backend waited on a lock on ${table} within ${timeoutMs} ms`);
      await sleep(20); // a pause between reads of pg_stat_activity, not a wait in their place
    }
  }

  const storedRow = async (id: string) =>
    (await t.sql.query('select quality, feedback_comment, item_digest from feedback_events where id = $1', [id])).rows[0];

  describe('R-FB-5 a clientFeedbackId reused with different content', () => {
    it('R-FB-5 fails that item with CONFLICT and DROP_FAILED_AND_RESUBMIT_REST; earlier items are recorded, the recorded event is unchanged', async () => {
      const { member } = await newTeam(t);
      const [a, b, c, d] = await recallEvents(t, member, member.spaceId, 4);
      const first = await submitOk(t, member, [fine(a, { clientFeedbackId: 'k-a' }), fine(b, { clientFeedbackId: 'k-b' })]);
      expect(first).toMatchObject({ recordedCount: 2, error: null });
      const before = await storedRow(first.feedbackEventIds[1]);

      // Item 1 reuses k-b for a changed judgment of b.
      const changed = fine(b, { clientFeedbackId: 'k-b', quality: 'LOW', feedbackComment: 'On second thought, weak.' });
      const payload = await submitOk(t, member, [fine(c, { clientFeedbackId: 'k-c' }), changed, fine(d, { clientFeedbackId: 'k-d' })]);
      const error = expectStopped(payload, 1, 'CONFLICT', 'DROP_FAILED_AND_RESUBMIT_REST');
      expect(error.message).toContain('k-b');
      expect(error.message).toContain(first.feedbackEventIds[1]);
      expect(error.remediation).toMatch(/clientFeedbackId/);
      expect(await Promise.all([a, b, c, d].map((id) => rowsFor(t, id)))).toEqual([1, 1, 1, 0]);
      expect(await storedRow(first.feedbackEventIds[1])).toEqual(before);
      expect(before).toMatchObject({ quality: 'HIGH', feedback_comment: null });

      // Dropping it and resubmitting the rest records the rest.
      const rest = await submitOk(t, member, [fine(d, { clientFeedbackId: 'k-d' })]);
      expect(rest).toMatchObject({ recordedCount: 1, error: null });
      // The changed judgment under a new key is a new event.
      const rekeyed = await submitOk(t, member, [{ ...changed, clientFeedbackId: 'k-b2' }]);
      expect(rekeyed).toMatchObject({ recordedCount: 1, error: null });
      expect(await rowsFor(t, b)).toBe(2);
    });

    it('R-FB-5 the same item spelled differently (key order, explicit nulls, refs reordered or without their rank) is a blind replay', async () => {
      const { member } = await newTeam(t);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      const original: FeedbackInput = fine(a, {
        irrelevant: true,
        feedbackComment: 'Relationship and evidence were about another screen.',
        irrelevantResultRefs: [
          { type: 'RELATIONSHIP', id: 'r_ok', rank: 1 },
          { type: 'EVIDENCE', id: 'ev_button', rank: 2 },
        ],
        hypothesisFeedback: [{ hypothesisId: 'hyp_ok', used: true }],
        clientFeedbackId: 'spelled',
      });
      const first = await submitOk(t, member, [original]);
      expect(first.error).toBeNull();

      const respelled: FeedbackInput = {
        clientFeedbackId: 'spelled',
        hypothesisFeedback: [{ feedbackComment: null, contradicted: null, quality: null, used: true, hypothesisId: 'hyp_ok' }],
        irrelevantResultRefs: [
          { id: 'ev_button', type: 'EVIDENCE' },
          { rank: null, id: 'r_ok', type: 'RELATIONSHIP' },
        ],
        missingContext: null,
        feedbackComment: 'Relationship and evidence were about another screen.',
        irrelevant: true,
        quality: 'HIGH',
        answerSupported: true,
        used: true,
        recallEventId: a,
      };
      const replay = await submitOk(t, member, [respelled]);
      expect(replay).toEqual(first);
      expect(await rowsFor(t, a)).toBe(1);
      expect((await storedRow(first.feedbackEventIds[0])).item_digest).toMatch(/^[0-9a-f]{64}$/);
    });

    it("R-FB-5 R-RT-3 when retention clears an event's comments its digest goes too: a replay of the key then returns the event as it is", async () => {
      const { member } = await newTeam(t);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      const item = fine(a, { quality: 'LOW', feedbackComment: 'Weak.', clientFeedbackId: 'old-one' });
      const first = await submitOk(t, member, [item]);
      const id = first.feedbackEventIds[0];
      await t.sql.query(`update feedback_events set created_at = now() - interval '100 days' where id = $1`, [id]);
      // As the sweep runs it: team-wide, under the team's tenant scope (R-TN-8).
      const cleared = await withTenantScope({ teamId: member.teamId }, () =>
        t.app.get(FeedbackService).clearExpiredCommentsBatch(member.teamId, new Date(Date.now() - 90 * 86_400_000), 100),
      );
      expect(cleared).toBe(1);
      expect(await storedRow(id)).toEqual({ quality: 'LOW', feedback_comment: null, item_digest: null });

      // The comment cannot be compared any more: the key's replay is taken as blind, whatever its comment.
      for (const replay of [item, { ...item, feedbackComment: 'Something else.' }]) {
        expect(await submitOk(t, member, [replay])).toEqual(first);
      }
      expect(await rowsFor(t, a)).toBe(1);
    });

    it('R-FB-5 within one batch, the key reused for another item is CONFLICT at that item; the first is recorded', async () => {
      const { member } = await newTeam(t);
      const [a, b] = await recallEvents(t, member, member.spaceId, 2);
      const payload = await submitOk(t, member, [fine(a, { clientFeedbackId: 'dup' }), fine(b, { clientFeedbackId: 'dup' })]);
      expectStopped(payload, 1, 'CONFLICT', 'DROP_FAILED_AND_RESUBMIT_REST');
      expect(await Promise.all([a, b].map((id) => rowsFor(t, id)))).toEqual([1, 0]);
    });

    it('R-FB-5 two requests racing one key with different content: one records, the other is CONFLICT, one row', async () => {
      const { member } = await newTeam(t);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      for (let round = 0; round < 3; round += 1) {
        const key = `race-${round}`;
        const [x, y] = await Promise.all([
          submitOk(t, member, [fine(a, { clientFeedbackId: key, quality: 'HIGH' })]),
          submitOk(t, member, [fine(a, { clientFeedbackId: key, quality: 'MEDIUM' })]),
        ]);
        const outcomes = [x, y].map((p) => p.error?.code ?? 'RECORDED').sort();
        expect(outcomes).toEqual(['CONFLICT', 'RECORDED']);
        const loser = [x, y].find((p) => p.error !== null)!;
        expectStopped(loser, 0, 'CONFLICT', 'DROP_FAILED_AND_RESUBMIT_REST');
        expect(Number((await t.sql.query('select count(*) from feedback_events where client_feedback_id = $1', [key])).rows[0].count)).toBe(
          1,
        );
      }
    });
  });

  describe('R-FB-3 a comment over 1000 characters', () => {
    it("R-FB-3 is that item's validation failure: COMMENT_TOO_LONG, CORRECT_AND_RESUBMIT_FROM_FAILED, earlier items recorded, never cut", async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 4);
      const batch = recalls.map((id) => fine(id));
      batch[2] = fine(recalls[2], { quality: 'LOW', feedbackComment: 'c'.repeat(1001) });

      const payload = await submitOk(t, member, batch);
      const error = expectStopped(payload, 2, 'COMMENT_TOO_LONG', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
      expect(error.message).toContain('feedbackComment');
      expect(error.message).toContain('1001');
      expect(error.remediation).toMatch(/Shorten feedbackComment to at most 1000 characters/);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 0, 0]);

      // Corrected to the limit, the rest is recorded with the comment whole.
      const comment = `${'c'.repeat(999)}!`;
      const rest = await submitOk(t, member, [{ ...batch[2], feedbackComment: comment }, batch[3]]);
      expect(rest).toMatchObject({ recordedCount: 2, error: null });
      expect((await storedRow(rest.feedbackEventIds[0])).feedback_comment).toBe(comment);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 1, 1]);
    });

    it("R-FB-3 a hypothesis comment over 1000 characters fails the item the same way, naming the hypothesis's field", async () => {
      const { member } = await newTeam(t);
      const [a, b] = await recallEvents(t, member, member.spaceId, 2);
      const payload = await submitOk(t, member, [
        fine(a),
        fine(b, { hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: 'h'.repeat(1001) }] }),
      ]);
      const error = expectStopped(payload, 1, 'COMMENT_TOO_LONG', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
      expect(error.message).toContain('hypothesisFeedback.0.feedbackComment');
      expect(await Promise.all([a, b].map((id) => rowsFor(t, id)))).toEqual([1, 0]);
    });

    it('R-FB-3 the batch bounds stay whole-request rejections (51 items: BAD_USER_INPUT, nothing recorded)', async () => {
      const { member } = await newTeam(t);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      const res = await submit(
        t,
        member,
        Array.from({ length: 51 }, () => fine(a)),
      );
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await teamRows(t, member.teamId)).toBe(0);
    });
  });

  describe('R-FB-2 a transient database fault', () => {
    it("R-FB-2 while reading the batch's recall events (table locked past the statement timeout): RETRY_FROM_FAILED at 0, nothing recorded; the retry records all", async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 3);
      const batch = recalls.map((id, i) => fine(id, { clientFeedbackId: `read-fault-${i}` }));
      // Another session holds recall_events ACCESS EXCLUSIVE: the batch's read of its recall events
      // waits, and the app's statement timeout cancels it (SQLSTATE 57014).
      await hold('lock table recall_events in access exclusive mode');
      const started = Date.now();
      const res = await submit(t, member, batch);
      expect(Date.now() - started).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
      await unlock();

      expect(res.errors).toBeUndefined();
      const payload = res.data!.submitRecallFeedback;
      const error = expectStopped(payload, 0, 'DATABASE_UNAVAILABLE', 'RETRY_FROM_FAILED');
      expect(error.message).toMatch(/nothing of it was stored/);
      expect(error.message).not.toMatch(/select|recall_events|statement timeout|canceling|rec_/i);
      expect(await teamRows(t, member.teamId)).toBe(0);

      const retried = await submitOk(t, member, batch);
      expect(retried).toMatchObject({ recordedCount: 3, error: null });
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 1]);
    });

    it('R-FB-2 a connection lost while recording item 2 (backend terminated): RETRY_FROM_FAILED at 2, items 0–1 recorded; the retry with the same keys records each once', async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 4);
      const batch = recalls.map((id, i) => fine(id, { clientFeedbackId: `lost-${i}` }));
      // Item 2's insert waits for its recall event row (held FOR UPDATE elsewhere); its backend is then terminated (57P01).
      await hold('select id from recall_events where team_id = $1 and id = $2 for update', [member.teamId, recalls[2]]);
      const pending = submit(t, member, batch);
      const pid = await lockWaiter('feedback_events');
      expect((await t.sql.query<{ ok: boolean }>('select pg_terminate_backend($1) as ok', [pid])).rows[0].ok).toBe(true);
      const res = await pending;
      await unlock();

      expect(res.errors).toBeUndefined();
      const payload = res.data!.submitRecallFeedback;
      const error = expectStopped(payload, 2, 'DATABASE_UNAVAILABLE', 'RETRY_FROM_FAILED');
      // The write may have committed before the connection went: the answer says so, and how to retry safely.
      expect(error.message).toMatch(/may or may not/);
      expect(error.remediation).toMatch(/clientFeedbackId/);
      expect(error.message).not.toMatch(/insert|feedback_events|terminat|administrator|rec_/i);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 0, 0]);

      const retried = await submitOk(t, member, batch.slice(2));
      expect(retried).toMatchObject({ recordedCount: 2, error: null });
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 1, 1]);
      // The pool recovered: a whole replay returns the four ids and records nothing.
      const replay = await submitOk(t, member, batch);
      expect(replay.feedbackEventIds).toEqual([...payload.feedbackEventIds, ...retried.feedbackEventIds]);
      expect(await teamRows(t, member.teamId)).toBe(4);
    });
  });
});
