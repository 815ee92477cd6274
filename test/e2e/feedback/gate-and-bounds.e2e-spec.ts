/**
 * Recall feedback through the API: the gate and scope (R-FB-1), validation and bounds (R-FB-3),
 * and input PostgreSQL cannot store (R-FB-2, R-FB-3, R-FB-5).
 */
import { FEEDBACK_EVENT, SUBMIT, type FeedbackInput } from '../../support/feedback-api';
import {
  createFeedbackApp,
  FEEDBACK_FLAG,
  fine,
  newTeam,
  recallEvents,
  rowsFor,
  submit,
  submitOk,
  teamRows,
} from '../../support/feedback-fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { newMember, setFlag } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

describe('Recall feedback (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('gate and scope', () => {
    it('R-FB-1 with recall_feedback_enabled off: FEATURE_DISABLED, nothing recorded; turning it off later deletes nothing', async () => {
      const { admin, member } = await newTeam(t, 1, { enabled: false });
      const [a, b] = await recallEvents(t, member, member.spaceId, 2);
      const off = await submit(t, member, [fine(a)]);
      expectErrorCode(off, 'FEATURE_DISABLED');
      expect(off.data?.submitRecallFeedback ?? null).toBeNull();
      expect(await teamRows(t, member.teamId)).toBe(0);

      await setFlag(t, admin, FEEDBACK_FLAG, true);
      const recorded = await submitOk(t, member, [fine(a)]);
      expect(recorded.recordedCount).toBe(1);

      await setFlag(t, admin, FEEDBACK_FLAG, false);
      expectErrorCode(await submit(t, member, [fine(b)]), 'FEATURE_DISABLED');
      expect(await teamRows(t, member.teamId)).toBe(1);
      // Still inspectable by the admin.
      expect(
        (await ok<{ feedbackEvent: { id: string } | null }>(t, FEEDBACK_EVENT, { id: recorded.feedbackEventIds[0] }, admin.token))
          .feedbackEvent?.id,
      ).toBe(recorded.feedbackEventIds[0]);
    });

    it("R-FB-1 R-TN-2 a token without feedback:write is FORBIDDEN, even an admin's or a memory:write member's", async () => {
      const { admin, member } = await newTeam(t);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      const writer = await newMember(t, admin, [member.spaceId], ['memory:read', 'memory:write']);
      for (const who of [writer, admin]) {
        const res = await submit(t, who, [fine(a)]);
        expectErrorCode(res, 'FORBIDDEN');
      }
      expect(await teamRows(t, member.teamId)).toBe(0);
      const noToken = await gql(t, SUBMIT, { input: { recalls: [fine(a)] } });
      expectErrorCode(noToken, 'UNAUTHENTICATED');
    });
  });

  describe('bounds', () => {
    it('R-FB-3 51 items, 51 refs, 51 hypotheses or a 129-character clientFeedbackId: BAD_USER_INPUT naming the field, nothing recorded', async () => {
      const { member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 3);
      const many = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
      const valid = recalls.map((id) => fine(id));
      const cases: [FeedbackInput[], string][] = [
        [many(51, (i) => fine(recalls[i % 3])), 'input.recalls'],
        [[], 'input.recalls'],
        [
          [
            ...valid,
            fine(recalls[0], {
              irrelevantResultRefs: many(51, () => ({ type: 'EVIDENCE', id: 'ev_button', rank: 2 })),
              irrelevant: true,
              feedbackComment: 'x',
            }),
          ],
          'input.recalls.3.irrelevantResultRefs',
        ],
        [
          [...valid, fine(recalls[0], { hypothesisFeedback: many(51, () => ({ hypothesisId: 'hyp_ok' })) })],
          'input.recalls.3.hypothesisFeedback',
        ],
        [[...valid, fine(recalls[2], { clientFeedbackId: 'k'.repeat(129) })], 'input.recalls.3.clientFeedbackId'],
      ];
      for (const [batch, field] of cases) {
        const res = await submit(t, member, batch);
        expectErrorCode(res, 'BAD_USER_INPUT', { field });
        expect(res.data?.submitRecallFeedback ?? null).toBeNull();
      }
      expect(await teamRows(t, member.teamId)).toBe(0);

      // The bounds themselves: 50 items, 50 refs, a 1000-character comment kept whole.
      const fifty = await submitOk(
        t,
        member,
        many(50, (i) => fine(recalls[i % 3])),
      );
      expect(fifty).toMatchObject({ recordedCount: 50, error: null });
      const comment = `${'c'.repeat(999)}!`;
      const edge = await submitOk(t, member, [
        fine(recalls[0], {
          quality: 'LOW',
          feedbackComment: comment,
          irrelevant: true,
          irrelevantResultRefs: many(50, () => ({ type: 'EVIDENCE', id: 'ev_button', rank: 2 })),
        }),
      ]);
      expect(edge.error).toBeNull();
      const stored = (
        await t.sql.query(
          'select feedback_comment, jsonb_array_length(irrelevant_result_refs) as refs from feedback_events where id = $1',
          [edge.feedbackEventIds[0]],
        )
      ).rows[0];
      expect(stored).toEqual({ feedback_comment: comment, refs: 50 });
      expect(await teamRows(t, member.teamId)).toBe(51);
    });
  });

  describe('input PostgreSQL cannot store', () => {
    it('R-FB-2 R-FB-3 a comment holding a NUL character is a correctable input error, not a transient fault to retry unchanged', async () => {
      const { member } = await newTeam(t);
      const [a, b] = await recallEvents(t, member, member.spaceId, 2);
      for (const bad of [
        fine(b, { quality: 'LOW', feedbackComment: 'stale\u0000results' }),
        fine(b, { hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: 'stale\u0000source' }] }),
      ]) {
        const res = await submit(t, member, [fine(a), bad]);
        const code = res.errors?.[0]?.extensions?.code;
        if (code !== undefined) {
          expect(code).toBe('BAD_USER_INPUT');
        } else {
          // Retrying the same item can never succeed: the client must be told to correct it.
          expect(res.data!.submitRecallFeedback.error).toMatchObject({ failedIndex: 1, nextAction: 'CORRECT_AND_RESUBMIT_FROM_FAILED' });
        }
        expect(await rowsFor(t, b)).toBe(0);
      }
    });

    it('R-FB-5 a clientFeedbackId holding a NUL character is BAD_USER_INPUT, not an internal error', async () => {
      const { member } = await newTeam(t);
      const [a] = await recallEvents(t, member, member.spaceId, 1);
      const res = await submit(t, member, [fine(a, { clientFeedbackId: 'key\u0000one' })]);
      expectErrorCode(res, 'BAD_USER_INPUT', { field: 'input.recalls.0.clientFeedbackId' });
      expect(await rowsFor(t, a)).toBe(0);
    });
  });
});
