/**
 * Recall feedback through the API: ordered items with exact partial failure (R-FB-2), refs bound
 * to the recall event and its space generation (R-FB-4), and idempotent replay (R-FB-5).
 */
import type { BatchError, FeedbackInput, Payload } from '../../support/feedback-api';
import {
  createFeedbackApp,
  expectStopped,
  FEEDBACK_SCOPES,
  fine,
  newTeam,
  recallEvent,
  recallEvents,
  rowsFor,
  STATEMENT_TIMEOUT_MS,
  submitOk,
  teamRows,
  type Team,
} from '../../support/feedback-fixtures';
import { ok } from '../../support/graphql';
import { BUMP, newMember, REMOVE_MEMBER, RETIRE, SEAL } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

describe('Recall feedback (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('partial failure', () => {
    it('R-FB-2 R-FB-3 a batch of 5 whose 3rd item lacks its comment records 2, stops at 2, and items 2–4 resubmitted corrected are recorded', async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 5);
      const batch = recalls.map((id) => fine(id, { quality: 'LOW', feedbackComment: `Item ${id} was weak.` }));
      batch[2] = { ...batch[2], feedbackComment: null, missingContext: true };

      const payload = await submitOk(t, member, batch);
      const error = expectStopped(payload, 2, 'COMMENT_REQUIRED', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
      expect(error.message).toMatch(/feedbackComment/);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 0, 0, 0]);
      const stored = (await t.sql.query('select id, recall_event_id from feedback_events where id = any($1)', [payload.feedbackEventIds]))
        .rows;
      expect(new Map(stored.map((r) => [r.id, r.recall_event_id]))).toEqual(
        new Map([
          [payload.feedbackEventIds[0], recalls[0]],
          [payload.feedbackEventIds[1], recalls[1]],
        ]),
      );

      const rest = batch.slice(2).map((item) => ({ ...item, feedbackComment: 'Missing the button handler; fetched styles instead.' }));
      const resubmitted = await submitOk(t, member, rest);
      expect(resubmitted).toMatchObject({ recordedCount: 3, error: null });
      expect(resubmitted.feedbackEventIds).toHaveLength(3);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 1, 1, 1]);
      expect(await teamRows(t, member.teamId)).toBe(5);
    });

    describe('R-FB-4 refs and recalls that do not fit', () => {
      let team: Team;
      let other: Team;
      beforeAll(async () => {
        team = await newTeam(t, 5);
        other = await newTeam(t);
      });

      /** Submits [good, bad, good]; expects a stop at 1 with the code and action; nothing of items 1–2 recorded. */
      async function expectItemRejected(bad: FeedbackInput, code: string, nextAction: string): Promise<BatchError> {
        const { member } = team;
        const [before, after] = await recallEvents(t, member, member.spaceId, 2);
        const payload = await submitOk(t, member, [fine(before), bad, fine(after)]);
        const error = expectStopped(payload, 1, code, nextAction);
        expect(await rowsFor(t, before)).toBe(1);
        expect(await rowsFor(t, bad.recallEventId)).toBe(0);
        expect(await rowsFor(t, after)).toBe(0);
        return error;
      }

      it('R-FB-4 an irrelevant ref the recall did not return is REF_NOT_IN_RECALL', async () => {
        const id = await recallEvent(t, team.member, { spaceId: team.member.spaceId });
        const bad = fine(id, {
          irrelevant: true,
          feedbackComment: 'Off topic.',
          irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_never_returned', rank: 1 }],
        });
        await expectItemRejected(bad, 'REF_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
        // A returned id under another type is not the returned ref either.
        const retyped = fine(id, {
          irrelevant: true,
          feedbackComment: 'Off topic.',
          irrelevantResultRefs: [{ type: 'ENTITY', id: 'r_ok', rank: 1 }],
        });
        await expectItemRejected(retyped, 'REF_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
      });

      it('R-FB-4 a returned ref at the wrong rank is REF_NOT_IN_RECALL; without a rank it is accepted', async () => {
        const id = await recallEvent(t, team.member, { spaceId: team.member.spaceId });
        const judged = { irrelevant: true, feedbackComment: 'Evidence was about another button.' };
        const error = await expectItemRejected(
          fine(id, { ...judged, irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 1 }] }),
          'REF_NOT_IN_RECALL',
          'CORRECT_AND_RESUBMIT_FROM_FAILED',
        );
        expect(error.message).toContain('rank 2');
        expect(
          (
            await submitOk(t, team.member, [
              fine(id, { ...judged, irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 2 }] }),
            ])
          ).error,
        ).toBeNull();
      });

      it('R-FB-4 a hypothesis the recall did not return (or returned as another type) is HYPOTHESIS_NOT_IN_RECALL', async () => {
        const id = await recallEvent(t, team.member, { spaceId: team.member.spaceId });
        for (const hypothesisId of ['hyp_unknown', 'r_ok']) {
          const bad = fine(id, {
            hypothesisFeedback: [{ hypothesisId, contradicted: true, feedbackComment: 'Contradicted by the code.' }],
          });
          const error = await expectItemRejected(bad, 'HYPOTHESIS_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
          expect(error.message).toContain(hypothesisId);
        }
      });

      it("R-FB-4 R-TN-5 another team's recall is RECALL_NOT_FOUND, exactly like an unknown id", async () => {
        const theirs = await recallEvent(t, other.member, { spaceId: other.member.spaceId });
        const errorTheirs = await expectItemRejected(fine(theirs), 'RECALL_NOT_FOUND', 'DROP_FAILED_AND_RESUBMIT_REST');
        const unknown = 'rec_01JAAAAAAAAAAAAAAAAAAAAAAA';
        const errorUnknown = await expectItemRejected(fine(unknown), 'RECALL_NOT_FOUND', 'DROP_FAILED_AND_RESUBMIT_REST');
        expect(errorTheirs.message.replace(theirs, 'X')).toBe(errorUnknown.message.replace(unknown, 'X'));
        expect(await teamRows(t, other.member.teamId)).toBe(0);
      });

      it('R-FB-4 a recall of a sealed space, a retired space, or a space the actor left is RECALL_STALE', async () => {
        const { admin, member, spaces } = team;
        const [sealed, retired, left] = [spaces[1], spaces[2], spaces[3]];
        const inSealed = await recallEvent(t, member, { spaceId: sealed });
        const inRetired = await recallEvent(t, member, { spaceId: retired });
        const inLeft = await recallEvent(t, member, { spaceId: left });
        await ok(t, SEAL, { s: sealed }, admin.token);
        await ok(t, RETIRE, { s: retired }, admin.token);
        await ok(t, REMOVE_MEMBER, { s: left, u: member.userId }, admin.token);
        for (const id of [inSealed, inRetired, inLeft]) await expectItemRejected(fine(id), 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
      });

      it('R-FB-4 a recall of an earlier generation is RECALL_STALE; dropping it and resubmitting the rest records the rest', async () => {
        const { admin, member, spaces } = team;
        const space = spaces[4];
        const old = await recallEvent(t, member, { spaceId: space });
        expect(
          (await ok<{ bumpSpaceGeneration: { generation: number } }>(t, BUMP, { s: space }, admin.token)).bumpSpaceGeneration.generation,
        ).toBe(2);
        const error = await expectItemRejected(fine(old), 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
        expect(error.message).toMatch(/generation 2/);

        // A recall of the new generation takes feedback; the old one still does not.
        const fresh = await recallEvent(t, member, { spaceId: space });
        const [a, b] = await recallEvents(t, member, member.spaceId, 2);
        const stopped = await submitOk(t, member, [fine(a), fine(old), fine(fresh), fine(b)]);
        expectStopped(stopped, 1, 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
        const rest = await submitOk(t, member, [fine(fresh), fine(b)]);
        expect(rest).toMatchObject({ recordedCount: 2, error: null });
        expect(await Promise.all([a, old, fresh, b].map((id) => rowsFor(t, id)))).toEqual([1, 0, 1, 1]);
        const generation = (await t.sql.query('select space_generation from feedback_events where recall_event_id = $1', [fresh])).rows[0]
          .space_generation;
        expect(generation).toBe(2);
      });
    });

    it('R-FB-2 a database fault on item 2 (its recall event row locked past the statement timeout) is RETRY_FROM_FAILED; retrying from 2 records the rest', async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 4);
      const batch = recalls.map((id) => fine(id));
      // Another session holds the recall event of item 2 FOR UPDATE: the insert's foreign-key check
      // waits for it and the app's statement timeout cancels the insert (SQLSTATE 57014).
      const locker = await t.sql.connect();
      let payload: Payload;
      try {
        await locker.query('begin');
        await locker.query('select id from recall_events where team_id = $1 and id = $2 for update', [member.teamId, recalls[2]]);
        const started = Date.now();
        payload = await submitOk(t, member, batch);
        expect(Date.now() - started).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
      } finally {
        await locker.query('rollback');
        locker.release();
      }
      const error = expectStopped(payload, 2, 'DATABASE_UNAVAILABLE', 'RETRY_FROM_FAILED');
      expect(error.remediation).toMatch(/retry/i);
      // The message says nothing of the statement or its values.
      expect(error.message).not.toMatch(/insert|feedback_events|statement timeout|rec_/i);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 0, 0]);

      const retried = await submitOk(t, member, batch.slice(2));
      expect(retried).toMatchObject({ recordedCount: 2, error: null });
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 1, 1]);
    });
  });

  describe('idempotency', () => {
    it('R-FB-5 a blind replay of a whole batch with clientFeedbackIds records nothing new and returns the same ids', async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 3);
      const batch = recalls.map((id, i) => fine(id, { clientFeedbackId: `session-42/item-${i}` }));
      const first = await submitOk(t, member, batch);
      expect(first).toMatchObject({ recordedCount: 3, error: null });
      const rows = await teamRows(t, member.teamId);
      expect(rows).toBe(3);

      const replay = await submitOk(t, member, batch);
      expect(replay).toEqual(first);
      expect(await teamRows(t, member.teamId)).toBe(rows);
      expect(
        (
          await t.sql.query('select client_feedback_id from feedback_events where id = any($1) order by client_feedback_id', [
            first.feedbackEventIds,
          ])
        ).rows.map((r) => r.client_feedback_id),
      ).toEqual(batch.map((b) => b.clientFeedbackId));
    });

    it('R-FB-5 R-FB-2 replaying a corrected batch after a partial failure skips what was recorded and records the rest', async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 3);
      const batch = recalls.map((id, i) => fine(id, { clientFeedbackId: `retry-${i}` }));
      const broken = batch.map((item, i) => (i === 1 ? { ...item, quality: 'LOW' as const } : item));
      const stopped = await submitOk(t, member, broken);
      expectStopped(stopped, 1, 'COMMENT_REQUIRED', 'CORRECT_AND_RESUBMIT_FROM_FAILED');

      const corrected = batch.map((item, i) => (i === 1 ? { ...item, quality: 'LOW' as const, feedbackComment: 'Weak results.' } : item));
      const whole = await submitOk(t, member, corrected);
      expect(whole).toMatchObject({ recordedCount: 3, error: null });
      expect(whole.feedbackEventIds[0]).toBe(stopped.feedbackEventIds[0]);
      expect(await Promise.all(recalls.map((id) => rowsFor(t, id)))).toEqual([1, 1, 1]);
    });

    it("R-FB-5 the same item twice under one clientFeedbackId in a batch records once; another actor's same id is its own", async () => {
      const { admin, member } = await newTeam(t);
      const colleague = await newMember(t, admin, [member.spaceId], FEEDBACK_SCOPES);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      const [b] = await recallEvents(t, colleague, member.spaceId, 1);
      const twice = await submitOk(t, member, [fine(a, { clientFeedbackId: 'dup' }), fine(a, { clientFeedbackId: 'dup' })]);
      expect(twice.error).toBeNull();
      expect(twice.feedbackEventIds[1]).toBe(twice.feedbackEventIds[0]);
      expect(await teamRows(t, member.teamId)).toBe(1);

      const theirs = await submitOk(t, colleague, [fine(b, { clientFeedbackId: 'dup' })]);
      expect(theirs.feedbackEventIds[0]).not.toBe(twice.feedbackEventIds[0]);
      expect(await teamRows(t, member.teamId)).toBe(2);
    });
  });
});
