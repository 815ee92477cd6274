/**
 * Recall feedback through the API: the event a submission stores, with the recall's own account
 * copied (R-FB-7, R-FB-4), and the record-only boundary: no other table changes (R-FB-6).
 */
import { createHash } from 'node:crypto';
import { FEEDBACK_EVENT, FEEDBACK_ID, type FeedbackInput, type Ref } from '../../support/feedback-api';
import {
  createFeedbackApp,
  expectStopped,
  FEEDBACK_SCOPES,
  fine,
  newTeam,
  recallEvent,
  recallEvents,
  rowsFor,
  submit,
  submitOk,
  teamRows,
} from '../../support/feedback-fixtures';
import { RECORD, toolResult } from '../../support/fixtures';
import { expectErrorCode, ok } from '../../support/graphql';
import { BUMP, newMember } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

const RECALL = `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q) { recallEventId results { ref { type id rank } } } }`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Recall feedback (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('the stored event', () => {
    it("R-FB-7 R-FB-4 the seed's example submission is accepted and stored with the recall's own account copied", async () => {
      const { admin, member } = await newTeam(t);
      const hypothesisId = 'hyp_01JSTALEUIBUTTONBEHAVIOR0';
      const results = [
        { type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 },
        { type: 'EVIDENCE', id: 'ev:doc-7#p3', rank: 2 },
        { type: 'HYPOTHESIS', id: hypothesisId, rank: 3 },
        { type: 'ENTITY', id: 'ent_save_button', rank: 4 },
      ];
      const recall = {
        spaceId: member.spaceId,
        query: '  Why does the SAVE button do nothing? ',
        contractVersion: 'graph-retriever.v2',
        rankingVersion: 'hybrid-rrf-3',
        fusionMode: 'rrf',
        searchFreshness: 'vector_pending',
        degradedBranches: ['vector', 'community_summaries'],
        results,
      };
      const recallEventId = await recallEvent(t, member, recall);
      const submission: FeedbackInput = {
        recallEventId,
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: 'Returned stale UI Relationships instead of the button behavior.',
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 }],
        hypothesisFeedback: [
          { hypothesisId, used: false, quality: 'LOW', contradicted: true, feedbackComment: 'The source Relationships were stale.' },
        ],
      };

      const payload = await submitOk(t, member, [submission]);
      expect(payload).toEqual({ recordedCount: 1, feedbackEventIds: [expect.stringMatching(FEEDBACK_ID)], error: null });
      const [id] = payload.feedbackEventIds;

      const row = (await t.sql.query('select * from feedback_events where id = $1', [id])).rows[0];
      expect(row).toMatchObject({
        id,
        recall_event_id: recallEventId,
        team_id: member.teamId,
        profile_id: member.userId,
        actor_id: member.userId,
        space_id: member.spaceId,
        space_generation: 1,
        query_fingerprint: sha256('why does the save button do nothing?'),
        contract_version: 'graph-retriever.v2',
        ranking_version: 'hybrid-rrf-3',
        fusion_mode: 'rrf',
        search_freshness: 'vector_pending',
        degraded_branches: ['vector', 'community_summaries'],
        returned_refs: results,
        used: true,
        answer_supported: false,
        quality: 'LOW',
        missing_context: true,
        irrelevant: true,
        feedback_comment: submission.feedbackComment,
        irrelevant_result_refs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 }],
        hypothesis_feedback: submission.hypothesisFeedback,
        client_feedback_id: null,
      });
      expect(row.created_at).toBeInstanceOf(Date);
      expect(Math.abs(Date.now() - (row.created_at as Date).getTime())).toBeLessThan(60_000);
      // The copy matches what the recall event itself holds.
      const stored = (
        await t.sql.query(
          'select query_fingerprint, contract_version, search_freshness, degraded_branches, results from recall_events where id = $1',
          [recallEventId],
        )
      ).rows[0];
      expect(row.query_fingerprint).toBe(stored.query_fingerprint);
      expect(row.returned_refs).toEqual(stored.results);

      const event = (await ok<{ feedbackEvent: Record<string, unknown> }>(t, FEEDBACK_EVENT, { id }, admin.token)).feedbackEvent;
      expect(event).toEqual({
        id,
        recallEventId,
        teamId: member.teamId,
        profileId: member.userId,
        actorId: member.userId,
        spaceId: member.spaceId,
        spaceGeneration: 1,
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: submission.feedbackComment,
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 }],
        hypothesisFeedback: submission.hypothesisFeedback,
        queryFingerprint: sha256('why does the save button do nothing?'),
        contractVersion: 'graph-retriever.v2',
        searchFreshness: 'vector_pending',
        fusionMode: 'rrf',
        degradedBranches: ['vector', 'community_summaries'],
        returnedRefs: results,
        clientFeedbackId: null,
        createdAt: expect.any(String),
        recallEvent: { id: recallEventId, spaceGeneration: 1 },
      });
    });

    it("R-FB-7 profileId is whose recall it was and actorId who judged it (a team admin of the space judging a member's recall)", async () => {
      const { admin, member } = await newTeam(t);
      const reviewer = await newMember(t, admin, [member.spaceId], [...FEEDBACK_SCOPES, 'admin']);
      const recallEventId = await recallEvent(t, member, { spaceId: member.spaceId });
      const [id] = (await submitOk(t, reviewer, [fine(recallEventId)])).feedbackEventIds;
      const event = (await ok<{ feedbackEvent: { profileId: string; actorId: string } }>(t, FEEDBACK_EVENT, { id }, admin.token))
        .feedbackEvent;
      expect(event).toMatchObject({ profileId: member.userId, actorId: reviewer.userId });
    });

    it("R-FB-4 R-TN-8 a member judging a teammate's recall (same space) gets the answer of an unknown recall, and nothing is recorded", async () => {
      const { admin, member } = await newTeam(t);
      const colleague = await newMember(t, admin, [member.spaceId], FEEDBACK_SCOPES);
      const teammates = await recallEvent(t, member, { spaceId: member.spaceId });
      const unknown = `rec_${'0'.repeat(26)}`;
      const judged = await Promise.all([teammates, unknown].map(async (id) => (await submitOk(t, colleague, [fine(id)])).error));
      // The same code, action and wording: a teammate's id tells nothing an unknown one does not.
      expect(judged[0]).toEqual({ ...judged[1], message: judged[1]!.message.replace(unknown, teammates) });
      expect(judged[0]).toMatchObject({ failedIndex: 0, code: 'RECALL_NOT_FOUND', nextAction: 'DROP_FAILED_AND_RESUBMIT_REST' });
      expect(await rowsFor(t, teammates)).toBe(0);
      // Its owner may judge it.
      expect((await submitOk(t, member, [fine(teammates)])).recordedCount).toBe(1);
    });

    it('R-FB-7 R-FB-4 feedback on a recallMemory recall names its TOOL_RESULT refs; an irrelevant ref given without a rank reads back with the rank it was returned at', async () => {
      const { admin, member } = await newTeam(t);
      const word = `fbword${Date.now()
        .toString(36)
        .replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`;
      const c = crypto.randomUUID();
      await ok(
        t,
        RECORD,
        {
          input: [
            toolResult(member.spaceId, c, { toolOutput: { note: word } }),
            toolResult(member.spaceId, c, { toolOutput: { note: `${word} again` } }),
          ],
        },
        member.token,
      );
      const recall = (
        await ok<{ recallMemory: { recallEventId: string; results: { ref: Required<Ref> }[] } }>(
          t,
          RECALL,
          { s: member.spaceId, q: word },
          member.token,
        )
      ).recallMemory;
      expect(recall.results).toHaveLength(2);
      const second = recall.results[1].ref;

      const payload = await submitOk(t, member, [
        fine(recall.recallEventId, {
          quality: 'MEDIUM',
          irrelevant: true,
          feedbackComment: 'The second hit was unrelated.',
          irrelevantResultRefs: [{ type: 'TOOL_RESULT', id: second.id }],
        }),
      ]);
      expect(payload.error).toBeNull();
      // ResultRef.rank is Int! in the contract: an omitted rank must not make the event unreadable.
      const { feedbackEvent } = await ok<{ feedbackEvent: { irrelevantResultRefs: Ref[]; returnedRefs: Ref[]; contractVersion: string } }>(
        t,
        FEEDBACK_EVENT,
        { id: payload.feedbackEventIds[0] },
        admin.token,
      );
      expect(feedbackEvent.irrelevantResultRefs).toEqual([{ type: 'TOOL_RESULT', id: second.id, rank: second.rank }]);
      expect(feedbackEvent.returnedRefs).toEqual(recall.results.map((r) => r.ref));
      // Nor the admin's whole listing, which holds it.
      const listed = await ok<{ feedbackEvents: { edges: { node: { irrelevantResultRefs: Ref[] } }[] } }>(
        t,
        `query { feedbackEvents(first: 10) { edges { node { irrelevantResultRefs { type id rank } } } } }`,
        {},
        admin.token,
      );
      expect(listed.feedbackEvents.edges.map((e) => e.node.irrelevantResultRefs)).toEqual([
        [{ type: 'TOOL_RESULT', id: second.id, rank: second.rank }],
      ]);
    });
  });

  describe('record-only boundary', () => {
    /** Row count and an md5 of the contents of every public table but feedback_events (and the migrations ledger). */
    async function fingerprint(): Promise<Record<string, { n: number; h: string }>> {
      const tables = (
        await t.sql.query<{ table_name: string }>(
          `select table_name from information_schema.tables
            where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not in ('feedback_events', 'mikro_orm_migrations')
            order by table_name`,
        )
      ).rows.map((r) => r.table_name);
      const out: Record<string, { n: number; h: string }> = {};
      for (const table of tables) {
        const row = (
          await t.sql.query(
            `select count(*)::int as n, md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as h from "${table}" t`,
          )
        ).rows[0];
        out[table] = { n: row.n, h: row.h };
      }
      return out;
    }

    it('R-FB-6 submissions (recorded, partially failed, replayed, disabled) change no table but feedback_events', async () => {
      const { admin, member, spaces } = await newTeam(t, 2);
      const recalls = await recallEvents(t, member, spaces[0], 3);
      const stale = await recallEvent(t, member, { spaceId: spaces[1] });
      await ok(t, BUMP, { s: spaces[1] }, admin.token);
      // A recallMemory recall too, so the snapshot tables hold rows of this team.
      const c = crypto.randomUUID();
      await ok(t, RECORD, { input: [toolResult(member.spaceId, c, { toolOutput: { note: 'boundaryword' } })] }, member.token);
      const internal = (
        await ok<{ recallMemory: { recallEventId: string; results: { ref: Required<Ref> }[] } }>(
          t,
          RECALL,
          { s: member.spaceId, q: 'boundaryword' },
          member.token,
        )
      ).recallMemory;
      // Every request resolves the actor first: make sure nothing is provisioned during the window.
      const before = await fingerprint();
      expect(Object.keys(before)).toEqual(expect.arrayContaining(['recall_events', 'spaces', 'feature_flags', 'users', 'teams']));
      const feedbackBefore = await teamRows(t, member.teamId);

      const seedLike: FeedbackInput = {
        recallEventId: recalls[0],
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: 'Returned stale UI Relationships instead of the button behavior.',
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_ok', rank: 1 }],
        hypothesisFeedback: [
          {
            hypothesisId: 'hyp_ok',
            used: false,
            quality: 'LOW',
            contradicted: true,
            feedbackComment: 'The source Relationships were stale.',
          },
        ],
        clientFeedbackId: 'boundary-0',
      };
      const internalItem = fine(internal.recallEventId, {
        irrelevant: true,
        feedbackComment: 'Not it.',
        irrelevantResultRefs: [internal.results[0].ref],
      });
      expect(await submitOk(t, member, [seedLike, fine(recalls[1]), internalItem])).toMatchObject({ recordedCount: 3, error: null });
      expectStopped(await submitOk(t, member, [fine(recalls[2]), fine(stale)]), 1, 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
      expect((await submitOk(t, member, [seedLike])).recordedCount).toBe(1);
      expectErrorCode(
        await submit(
          t,
          member,
          Array.from({ length: 51 }, () => fine(recalls[0])),
        ),
        'BAD_USER_INPUT',
      );

      const after = await fingerprint();
      expect(after).toEqual(before);
      expect(await teamRows(t, member.teamId)).toBe(feedbackBefore + 4);
    });
  });
});
