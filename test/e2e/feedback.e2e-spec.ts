/**
 * Recall feedback through the API: the gate and scope (R-FB-1), ordered items with exact partial
 * failure (R-FB-2), validation and bounds (R-FB-3), refs bound to the recall event and its space
 * generation (R-FB-4), idempotent replay (R-FB-5), the record-only boundary (R-FB-6), the stored
 * event (R-FB-7), admin inspection (R-FB-8) and metrics (R-FB-9).
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { RECORD, toolResult, type SpaceMember } from '../support/fixtures';
import { expectErrorCode, gql, type GraphqlResponse, ok } from '../support/graphql';
import { BUMP, newMember, newSpace, REMOVE_MEMBER, RETIRE, SEAL, setFlag } from '../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../support/test-app';

/** Statements past this are cancelled: the lock test below turns a held row lock into a real database fault. */
const STATEMENT_TIMEOUT_MS = 1500;

const FEEDBACK_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;
const FLAG = 'recall_feedback_enabled';
const FEEDBACK_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];

const SUBMIT = `mutation($input: RecallFeedbackBatchInput!) {
  submitRecallFeedback(input: $input) {
    recordedCount feedbackEventIds error { failedIndex code message nextAction remediation }
  }
}`;
const EVENT_FIELDS = `id recallEventId teamId profileId actorId spaceId spaceGeneration used answerSupported quality missingContext irrelevant
  feedbackComment irrelevantResultRefs { type id rank } hypothesisFeedback { hypothesisId used quality contradicted feedbackComment }
  queryFingerprint contractVersion searchFreshness fusionMode degradedBranches returnedRefs { type id rank } clientFeedbackId createdAt`;
const FEEDBACK_EVENT = `query($id: ID!) { feedbackEvent(id: $id) { ${EVENT_FIELDS} recallEvent { id spaceGeneration } } }`;
const FEEDBACK_EVENTS = `query($filter: FeedbackEventFilter, $first: Int, $after: String) {
  feedbackEvents(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id recallEventId spaceId spaceGeneration used answerSupported quality contractVersion createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const METRICS = `query($filter: FeedbackEventFilter, $groupBy: FeedbackMetricsGroupBy) {
  feedbackMetrics(filter: $filter, groupBy: $groupBy) { group events usedRate answerSupportedRate averageQuality missingContextRate irrelevantRate }
}`;
const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { id spaceGeneration results { type id rank } } }`;
const RECALL = `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q) { recallEventId results { ref { type id rank } } } }`;

type Quality = 'LOW' | 'MEDIUM' | 'HIGH';
interface Ref {
  type: string;
  id: string;
  rank?: number | null;
}
interface HypothesisInput {
  hypothesisId: string;
  used?: boolean | null;
  quality?: Quality | null;
  contradicted?: boolean | null;
  feedbackComment?: string | null;
}
interface FeedbackInput {
  recallEventId: string;
  used: boolean;
  answerSupported?: boolean | null;
  quality?: Quality | null;
  missingContext?: boolean | null;
  irrelevant?: boolean | null;
  feedbackComment?: string | null;
  irrelevantResultRefs?: Ref[] | null;
  hypothesisFeedback?: HypothesisInput[] | null;
  clientFeedbackId?: string | null;
}
interface BatchError {
  failedIndex: number;
  code: string;
  message: string;
  nextAction: string;
  remediation: string;
}
interface Payload {
  recordedCount: number;
  feedbackEventIds: string[];
  error: BatchError | null;
}
interface RecallEventInput {
  spaceId: string;
  query?: string;
  contractVersion?: string;
  rankingVersion?: string | null;
  fusionMode?: string | null;
  searchFreshness?: string | null;
  degradedBranches?: string[];
  results?: Required<Ref>[];
}
interface ListedEvent {
  id: string;
  recallEventId: string;
  spaceId: string;
  spaceGeneration: number;
  used: boolean;
  answerSupported: boolean | null;
  quality: Quality | null;
  contractVersion: string;
  createdAt: string;
}
interface Connection {
  edges: { cursor: string; node: ListedEvent }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
interface MetricsRow {
  group: string | null;
  events: number;
  usedRate: number;
  answerSupportedRate: number;
  averageQuality: number | null;
  missingContextRate: number;
  irrelevantRate: number;
}
/** A team with feedback on: its admin and a member (memory + feedback:write) of its spaces. */
interface Team {
  admin: TestIdentity;
  member: SpaceMember;
  spaces: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The refs an external retriever returned, seed-style: a relationship, evidence and a hypothesis. */
const DEFAULT_RESULTS = [
  { type: 'RELATIONSHIP', id: 'r_ok', rank: 1 },
  { type: 'EVIDENCE', id: 'ev_button', rank: 2 },
  { type: 'HYPOTHESIS', id: 'hyp_ok', rank: 3 },
];
const fine = (recallEventId: string, overrides: Partial<FeedbackInput> = {}): FeedbackInput => ({
  recallEventId,
  used: true,
  answerSupported: true,
  quality: 'HIGH',
  ...overrides,
});

describe('Recall feedback (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A new team with `spaceCount` spaces, a member of all of them, and feedback enabled. */
  async function newTeam(spaceCount = 1, { enabled = true } = {}): Promise<Team> {
    const admin = await identity(['admin']);
    const spaces: string[] = [];
    for (let i = 0; i < spaceCount; i += 1) spaces.push(await newSpace(t, admin, 'feedback'));
    const member = await newMember(t, admin, spaces, FEEDBACK_SCOPES);
    if (enabled) await setFlag(t, admin, FLAG, true);
    return { admin, member: { ...member, spaceId: spaces[0] }, spaces };
  }

  /** An external recall event (recordRecallEvent) in a space of the member's. */
  async function recallEvent(who: TestIdentity, input: RecallEventInput): Promise<string> {
    const full = { query: 'why does the save button do nothing', contractVersion: 'graph-retriever.v2', results: DEFAULT_RESULTS, ...input };
    return (await ok<{ recordRecallEvent: { id: string } }>(t, RECORD_EVENT, { input: full }, who.token)).recordRecallEvent.id;
  }
  async function recallEvents(who: TestIdentity, spaceId: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) ids.push(await recallEvent(who, { spaceId }));
    return ids;
  }

  const submit = (who: TestIdentity, recalls: FeedbackInput[]): Promise<GraphqlResponse<{ submitRecallFeedback: Payload }>> =>
    gql<{ submitRecallFeedback: Payload }>(t, SUBMIT, { input: { recalls } }, who.token);
  async function submitOk(who: TestIdentity, recalls: FeedbackInput[]): Promise<Payload> {
    return (await ok<{ submitRecallFeedback: Payload }>(t, SUBMIT, { input: { recalls } }, who.token)).submitRecallFeedback;
  }

  const count = async (where: string, params: unknown[]) => Number((await t.sql.query(`select count(*) from feedback_events where ${where}`, params)).rows[0].count);
  const rowsFor = (recallEventId: string) => count('recall_event_id = $1', [recallEventId]);
  const teamRows = (teamId: string) => count('team_id = $1', [teamId]);

  /** The partial-failure invariants every stopped batch keeps (R-FB-2). */
  function expectStopped(payload: Payload, failedIndex: number, code: string, nextAction: string): BatchError {
    expect(payload.error).toMatchObject({ failedIndex, code, nextAction });
    expect(payload.recordedCount).toBe(failedIndex);
    expect(payload.feedbackEventIds).toHaveLength(failedIndex);
    for (const id of payload.feedbackEventIds) expect(id).toMatch(FEEDBACK_ID);
    expect(payload.error!.message.length).toBeGreaterThan(0);
    expect(payload.error!.remediation).toMatch(/^[A-Z].{10,}\.$/s);
    return payload.error!;
  }

  describe('the stored event', () => {
    it('R-FB-7 R-FB-4 the seed\'s example submission is accepted and stored with the recall\'s own account copied', async () => {
      const { admin, member } = await newTeam();
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
      const recallEventId = await recallEvent(member, recall);
      const submission: FeedbackInput = {
        recallEventId,
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: 'Returned stale UI Relationships instead of the button behavior.',
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 }],
        hypothesisFeedback: [{ hypothesisId, used: false, quality: 'LOW', contradicted: true, feedbackComment: 'The source Relationships were stale.' }],
      };

      const payload = await submitOk(member, [submission]);
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
      const stored = (await t.sql.query('select query_fingerprint, contract_version, search_freshness, degraded_branches, results from recall_events where id = $1', [recallEventId])).rows[0];
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

    it('R-FB-7 profileId is whose recall it was and actorId who judged it (another member of the space)', async () => {
      const { admin, member } = await newTeam();
      const colleague = await newMember(t, admin, [member.spaceId], FEEDBACK_SCOPES);
      const recallEventId = await recallEvent(member, { spaceId: member.spaceId });
      const [id] = (await submitOk(colleague, [fine(recallEventId)])).feedbackEventIds;
      const event = (await ok<{ feedbackEvent: { profileId: string; actorId: string } }>(t, FEEDBACK_EVENT, { id }, admin.token)).feedbackEvent;
      expect(event).toMatchObject({ profileId: member.userId, actorId: colleague.userId });
    });

    it('R-FB-7 R-FB-4 feedback on a recallMemory recall names its TOOL_RESULT refs; an irrelevant ref given without a rank reads back with the rank it was returned at', async () => {
      const { admin, member } = await newTeam();
      const word = `fbword${Date.now().toString(36).replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`;
      const c = crypto.randomUUID();
      await ok(t, RECORD, { input: [toolResult(member.spaceId, c, { toolOutput: { note: word } }), toolResult(member.spaceId, c, { toolOutput: { note: `${word} again` } })] }, member.token);
      const recall = (await ok<{ recallMemory: { recallEventId: string; results: { ref: Required<Ref> }[] } }>(t, RECALL, { s: member.spaceId, q: word }, member.token)).recallMemory;
      expect(recall.results).toHaveLength(2);
      const second = recall.results[1].ref;

      const payload = await submitOk(member, [
        fine(recall.recallEventId, { quality: 'MEDIUM', irrelevant: true, feedbackComment: 'The second hit was unrelated.', irrelevantResultRefs: [{ type: 'TOOL_RESULT', id: second.id }] }),
      ]);
      expect(payload.error).toBeNull();
      // ResultRef.rank is Int! in the contract: an omitted rank must not make the event unreadable.
      const { feedbackEvent } = await ok<{ feedbackEvent: { irrelevantResultRefs: Ref[]; returnedRefs: Ref[]; contractVersion: string } }>(t, FEEDBACK_EVENT, { id: payload.feedbackEventIds[0] }, admin.token);
      expect(feedbackEvent.irrelevantResultRefs).toEqual([{ type: 'TOOL_RESULT', id: second.id, rank: second.rank }]);
      expect(feedbackEvent.returnedRefs).toEqual(recall.results.map((r) => r.ref));
      // Nor the admin's whole listing, which holds it.
      const listed = await ok<{ feedbackEvents: { edges: { node: { irrelevantResultRefs: Ref[] } }[] } }>(
        t,
        `query { feedbackEvents(first: 10) { edges { node { irrelevantResultRefs { type id rank } } } } }`,
        {},
        admin.token,
      );
      expect(listed.feedbackEvents.edges.map((e) => e.node.irrelevantResultRefs)).toEqual([[{ type: 'TOOL_RESULT', id: second.id, rank: second.rank }]]);
    });
  });

  describe('partial failure', () => {
    it('R-FB-2 R-FB-3 a batch of 5 whose 3rd item lacks its comment records 2, stops at 2, and items 2–4 resubmitted corrected are recorded', async () => {
      const { member } = await newTeam();
      const recalls = await recallEvents(member, member.spaceId, 5);
      const batch = recalls.map((id) => fine(id, { quality: 'LOW', feedbackComment: `Item ${id} was weak.` }));
      batch[2] = { ...batch[2], feedbackComment: null, missingContext: true };

      const payload = await submitOk(member, batch);
      const error = expectStopped(payload, 2, 'COMMENT_REQUIRED', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
      expect(error.message).toMatch(/feedbackComment/);
      expect(await Promise.all(recalls.map(rowsFor))).toEqual([1, 1, 0, 0, 0]);
      const stored = (await t.sql.query('select id, recall_event_id from feedback_events where id = any($1)', [payload.feedbackEventIds])).rows;
      expect(new Map(stored.map((r) => [r.id, r.recall_event_id]))).toEqual(new Map([[payload.feedbackEventIds[0], recalls[0]], [payload.feedbackEventIds[1], recalls[1]]]));

      const rest = batch.slice(2).map((item) => ({ ...item, feedbackComment: 'Missing the button handler; fetched styles instead.' }));
      const resubmitted = await submitOk(member, rest);
      expect(resubmitted).toMatchObject({ recordedCount: 3, error: null });
      expect(resubmitted.feedbackEventIds).toHaveLength(3);
      expect(await Promise.all(recalls.map(rowsFor))).toEqual([1, 1, 1, 1, 1]);
      expect(await teamRows(member.teamId)).toBe(5);
    });

    describe('R-FB-4 refs and recalls that do not fit', () => {
      let team: Team;
      let other: Team;
      beforeAll(async () => {
        team = await newTeam(5);
        other = await newTeam();
      });

      /** Submits [good, bad, good]; expects a stop at 1 with the code and action; nothing of items 1–2 recorded. */
      async function expectItemRejected(bad: FeedbackInput, code: string, nextAction: string): Promise<BatchError> {
        const { member } = team;
        const [before, after] = await recallEvents(member, member.spaceId, 2);
        const payload = await submitOk(member, [fine(before), bad, fine(after)]);
        const error = expectStopped(payload, 1, code, nextAction);
        expect(await rowsFor(before)).toBe(1);
        expect(await rowsFor(bad.recallEventId)).toBe(0);
        expect(await rowsFor(after)).toBe(0);
        return error;
      }

      it('R-FB-4 an irrelevant ref the recall did not return is REF_NOT_IN_RECALL', async () => {
        const id = await recallEvent(team.member, { spaceId: team.member.spaceId });
        const bad = fine(id, { irrelevant: true, feedbackComment: 'Off topic.', irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_never_returned', rank: 1 }] });
        await expectItemRejected(bad, 'REF_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
        // A returned id under another type is not the returned ref either.
        const retyped = fine(id, { irrelevant: true, feedbackComment: 'Off topic.', irrelevantResultRefs: [{ type: 'ENTITY', id: 'r_ok', rank: 1 }] });
        await expectItemRejected(retyped, 'REF_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
      });

      it('R-FB-4 a returned ref at the wrong rank is REF_NOT_IN_RECALL; without a rank it is accepted', async () => {
        const id = await recallEvent(team.member, { spaceId: team.member.spaceId });
        const judged = { irrelevant: true, feedbackComment: 'Evidence was about another button.' };
        const error = await expectItemRejected(fine(id, { ...judged, irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 1 }] }), 'REF_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
        expect(error.message).toContain('rank 2');
        expect((await submitOk(team.member, [fine(id, { ...judged, irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 2 }] })])).error).toBeNull();
      });

      it('R-FB-4 a hypothesis the recall did not return (or returned as another type) is HYPOTHESIS_NOT_IN_RECALL', async () => {
        const id = await recallEvent(team.member, { spaceId: team.member.spaceId });
        for (const hypothesisId of ['hyp_unknown', 'r_ok']) {
          const bad = fine(id, { hypothesisFeedback: [{ hypothesisId, contradicted: true, feedbackComment: 'Contradicted by the code.' }] });
          const error = await expectItemRejected(bad, 'HYPOTHESIS_NOT_IN_RECALL', 'CORRECT_AND_RESUBMIT_FROM_FAILED');
          expect(error.message).toContain(hypothesisId);
        }
      });

      it('R-FB-4 R-TN-5 another team\'s recall is RECALL_NOT_FOUND, exactly like an unknown id', async () => {
        const theirs = await recallEvent(other.member, { spaceId: other.member.spaceId });
        const errorTheirs = await expectItemRejected(fine(theirs), 'RECALL_NOT_FOUND', 'DROP_FAILED_AND_RESUBMIT_REST');
        const unknown = 'rec_01JAAAAAAAAAAAAAAAAAAAAAAA';
        const errorUnknown = await expectItemRejected(fine(unknown), 'RECALL_NOT_FOUND', 'DROP_FAILED_AND_RESUBMIT_REST');
        expect(errorTheirs.message.replace(theirs, 'X')).toBe(errorUnknown.message.replace(unknown, 'X'));
        expect(await teamRows(other.member.teamId)).toBe(0);
      });

      it('R-FB-4 a recall of a sealed space, a retired space, or a space the actor left is RECALL_STALE', async () => {
        const { admin, member, spaces } = team;
        const [sealed, retired, left] = [spaces[1], spaces[2], spaces[3]];
        const inSealed = await recallEvent(member, { spaceId: sealed });
        const inRetired = await recallEvent(member, { spaceId: retired });
        const inLeft = await recallEvent(member, { spaceId: left });
        await ok(t, SEAL, { s: sealed }, admin.token);
        await ok(t, RETIRE, { s: retired }, admin.token);
        await ok(t, REMOVE_MEMBER, { s: left, u: member.userId }, admin.token);
        for (const id of [inSealed, inRetired, inLeft]) await expectItemRejected(fine(id), 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
      });

      it('R-FB-4 a recall of an earlier generation is RECALL_STALE; dropping it and resubmitting the rest records the rest', async () => {
        const { admin, member, spaces } = team;
        const space = spaces[4];
        const old = await recallEvent(member, { spaceId: space });
        expect((await ok<{ bumpSpaceGeneration: { generation: number } }>(t, BUMP, { s: space }, admin.token)).bumpSpaceGeneration.generation).toBe(2);
        const error = await expectItemRejected(fine(old), 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
        expect(error.message).toMatch(/generation 2/);

        // A recall of the new generation takes feedback; the old one still does not.
        const fresh = await recallEvent(member, { spaceId: space });
        const [a, b] = await recallEvents(member, member.spaceId, 2);
        const stopped = await submitOk(member, [fine(a), fine(old), fine(fresh), fine(b)]);
        expectStopped(stopped, 1, 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
        const rest = await submitOk(member, [fine(fresh), fine(b)]);
        expect(rest).toMatchObject({ recordedCount: 2, error: null });
        expect(await Promise.all([a, old, fresh, b].map(rowsFor))).toEqual([1, 0, 1, 1]);
        const generation = (await t.sql.query('select space_generation from feedback_events where recall_event_id = $1', [fresh])).rows[0].space_generation;
        expect(generation).toBe(2);
      });
    });

    it('R-FB-2 a database fault on item 2 (its recall event row locked past the statement timeout) is RETRY_FROM_FAILED; retrying from 2 records the rest', async () => {
      const { member } = await newTeam();
      const recalls = await recallEvents(member, member.spaceId, 4);
      const batch = recalls.map((id) => fine(id));
      // Another session holds the recall event of item 2 FOR UPDATE: the insert's foreign-key check
      // waits for it and the app's statement timeout cancels the insert (SQLSTATE 57014).
      const locker = await t.sql.connect();
      let payload: Payload;
      try {
        await locker.query('begin');
        await locker.query('select id from recall_events where team_id = $1 and id = $2 for update', [member.teamId, recalls[2]]);
        const started = Date.now();
        payload = await submitOk(member, batch);
        expect(Date.now() - started).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
      } finally {
        await locker.query('rollback');
        locker.release();
      }
      const error = expectStopped(payload, 2, 'DATABASE_UNAVAILABLE', 'RETRY_FROM_FAILED');
      expect(error.remediation).toMatch(/retry/i);
      // The message says nothing of the statement or its values.
      expect(error.message).not.toMatch(/insert|feedback_events|statement timeout|rec_/i);
      expect(await Promise.all(recalls.map(rowsFor))).toEqual([1, 1, 0, 0]);

      const retried = await submitOk(member, batch.slice(2));
      expect(retried).toMatchObject({ recordedCount: 2, error: null });
      expect(await Promise.all(recalls.map(rowsFor))).toEqual([1, 1, 1, 1]);
    });
  });

  describe('bounds', () => {
    it('R-FB-3 51 items, 51 refs, 51 hypotheses, a 1001-character comment or a 129-character clientFeedbackId: BAD_USER_INPUT naming the field, nothing recorded', async () => {
      const { member } = await newTeam();
      const recalls = await recallEvents(member, member.spaceId, 3);
      const many = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
      const valid = recalls.map((id) => fine(id));
      const cases: [FeedbackInput[], string][] = [
        [many(51, (i) => fine(recalls[i % 3])), 'input.recalls'],
        [[], 'input.recalls'],
        [[...valid, fine(recalls[0], { irrelevantResultRefs: many(51, () => ({ type: 'EVIDENCE', id: 'ev_button', rank: 2 })), irrelevant: true, feedbackComment: 'x' })], 'input.recalls.3.irrelevantResultRefs'],
        [[...valid, fine(recalls[0], { hypothesisFeedback: many(51, () => ({ hypothesisId: 'hyp_ok' })) })], 'input.recalls.3.hypothesisFeedback'],
        [[...valid, fine(recalls[1], { quality: 'LOW', feedbackComment: 'c'.repeat(1001) })], 'input.recalls.3.feedbackComment'],
        [[...valid, fine(recalls[1], { hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: 'h'.repeat(1001) }] })], 'input.recalls.3.hypothesisFeedback.0.feedbackComment'],
        [[...valid, fine(recalls[2], { clientFeedbackId: 'k'.repeat(129) })], 'input.recalls.3.clientFeedbackId'],
      ];
      for (const [batch, field] of cases) {
        const res = await submit(member, batch);
        expectErrorCode(res, 'BAD_USER_INPUT', { field });
        expect(res.data?.submitRecallFeedback ?? null).toBeNull();
      }
      expect(await teamRows(member.teamId)).toBe(0);

      // The bounds themselves: 50 items, 50 refs, a 1000-character comment kept whole.
      const fifty = await submitOk(member, many(50, (i) => fine(recalls[i % 3])));
      expect(fifty).toMatchObject({ recordedCount: 50, error: null });
      const comment = `${'c'.repeat(999)}!`;
      const edge = await submitOk(member, [
        fine(recalls[0], { quality: 'LOW', feedbackComment: comment, irrelevant: true, irrelevantResultRefs: many(50, () => ({ type: 'EVIDENCE', id: 'ev_button', rank: 2 })) }),
      ]);
      expect(edge.error).toBeNull();
      const stored = (await t.sql.query('select feedback_comment, jsonb_array_length(irrelevant_result_refs) as refs from feedback_events where id = $1', [edge.feedbackEventIds[0]])).rows[0];
      expect(stored).toEqual({ feedback_comment: comment, refs: 50 });
      expect(await teamRows(member.teamId)).toBe(51);
    });
  });

  describe('input PostgreSQL cannot store', () => {
    it('R-FB-2 R-FB-3 a comment holding a NUL character is a correctable input error, not a transient fault to retry unchanged', async () => {
      const { member } = await newTeam();
      const [a, b] = await recallEvents(member, member.spaceId, 2);
      for (const bad of [
        fine(b, { quality: 'LOW', feedbackComment: 'stale\u0000results' }),
        fine(b, { hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: 'stale\u0000source' }] }),
      ]) {
        const res = await submit(member, [fine(a), bad]);
        const code = res.errors?.[0]?.extensions?.code;
        if (code !== undefined) {
          expect(code).toBe('BAD_USER_INPUT');
        } else {
          // Retrying the same item can never succeed: the client must be told to correct it.
          expect(res.data!.submitRecallFeedback.error).toMatchObject({ failedIndex: 1, nextAction: 'CORRECT_AND_RESUBMIT_FROM_FAILED' });
        }
        expect(await rowsFor(b)).toBe(0);
      }
    });

    it('R-FB-5 a clientFeedbackId holding a NUL character is BAD_USER_INPUT, not an internal error', async () => {
      const { member } = await newTeam();
      const [a] = await recallEvents(member, member.spaceId, 1);
      const res = await submit(member, [fine(a, { clientFeedbackId: 'key\u0000one' })]);
      expectErrorCode(res, 'BAD_USER_INPUT', { field: 'input.recalls.0.clientFeedbackId' });
      expect(await rowsFor(a)).toBe(0);
    });
  });

  describe('idempotency', () => {
    it('R-FB-5 a blind replay of a whole batch with clientFeedbackIds records nothing new and returns the same ids', async () => {
      const { member } = await newTeam();
      const recalls = await recallEvents(member, member.spaceId, 3);
      const batch = recalls.map((id, i) => fine(id, { clientFeedbackId: `session-42/item-${i}` }));
      const first = await submitOk(member, batch);
      expect(first).toMatchObject({ recordedCount: 3, error: null });
      const rows = await teamRows(member.teamId);
      expect(rows).toBe(3);

      const replay = await submitOk(member, batch);
      expect(replay).toEqual(first);
      expect(await teamRows(member.teamId)).toBe(rows);
      expect((await t.sql.query('select client_feedback_id from feedback_events where id = any($1) order by client_feedback_id', [first.feedbackEventIds])).rows.map((r) => r.client_feedback_id)).toEqual(
        batch.map((b) => b.clientFeedbackId),
      );
    });

    it('R-FB-5 R-FB-2 replaying a corrected batch after a partial failure skips what was recorded and records the rest', async () => {
      const { member } = await newTeam();
      const recalls = await recallEvents(member, member.spaceId, 3);
      const batch = recalls.map((id, i) => fine(id, { clientFeedbackId: `retry-${i}` }));
      const broken = batch.map((item, i) => (i === 1 ? { ...item, quality: 'LOW' as const } : item));
      const stopped = await submitOk(member, broken);
      expectStopped(stopped, 1, 'COMMENT_REQUIRED', 'CORRECT_AND_RESUBMIT_FROM_FAILED');

      const corrected = batch.map((item, i) => (i === 1 ? { ...item, quality: 'LOW' as const, feedbackComment: 'Weak results.' } : item));
      const whole = await submitOk(member, corrected);
      expect(whole).toMatchObject({ recordedCount: 3, error: null });
      expect(whole.feedbackEventIds[0]).toBe(stopped.feedbackEventIds[0]);
      expect(await Promise.all(recalls.map(rowsFor))).toEqual([1, 1, 1]);
    });

    it('R-FB-5 the same clientFeedbackId twice in a batch records once; another actor\'s same id is its own', async () => {
      const { admin, member } = await newTeam();
      const colleague = await newMember(t, admin, [member.spaceId], FEEDBACK_SCOPES);
      const [a, b] = await recallEvents(member, member.spaceId, 2);
      const twice = await submitOk(member, [fine(a, { clientFeedbackId: 'dup' }), fine(b, { clientFeedbackId: 'dup' })]);
      expect(twice.error).toBeNull();
      expect(twice.feedbackEventIds[1]).toBe(twice.feedbackEventIds[0]);
      expect(await teamRows(member.teamId)).toBe(1);

      const theirs = await submitOk(colleague, [fine(a, { clientFeedbackId: 'dup' })]);
      expect(theirs.feedbackEventIds[0]).not.toBe(twice.feedbackEventIds[0]);
      expect(await teamRows(member.teamId)).toBe(2);
    });
  });

  describe('gate and scope', () => {
    it('R-FB-1 with recall_feedback_enabled off: FEATURE_DISABLED, nothing recorded; turning it off later deletes nothing', async () => {
      const { admin, member } = await newTeam(1, { enabled: false });
      const [a, b] = await recallEvents(member, member.spaceId, 2);
      const off = await submit(member, [fine(a)]);
      expectErrorCode(off, 'FEATURE_DISABLED');
      expect(off.data?.submitRecallFeedback ?? null).toBeNull();
      expect(await teamRows(member.teamId)).toBe(0);

      await setFlag(t, admin, FLAG, true);
      const recorded = await submitOk(member, [fine(a)]);
      expect(recorded.recordedCount).toBe(1);

      await setFlag(t, admin, FLAG, false);
      expectErrorCode(await submit(member, [fine(b)]), 'FEATURE_DISABLED');
      expect(await teamRows(member.teamId)).toBe(1);
      // Still inspectable by the admin.
      expect((await ok<{ feedbackEvent: { id: string } | null }>(t, FEEDBACK_EVENT, { id: recorded.feedbackEventIds[0] }, admin.token)).feedbackEvent?.id).toBe(recorded.feedbackEventIds[0]);
    });

    it('R-FB-1 R-TN-2 a token without feedback:write is FORBIDDEN, even an admin\'s or a memory:write member\'s', async () => {
      const { admin, member } = await newTeam();
      const [a] = await recallEvents(member, member.spaceId, 1);
      const writer = await newMember(t, admin, [member.spaceId], ['memory:read', 'memory:write']);
      for (const who of [writer, admin]) {
        const res = await submit(who, [fine(a)]);
        expectErrorCode(res, 'FORBIDDEN');
      }
      expect(await teamRows(member.teamId)).toBe(0);
      const noToken = await gql(t, SUBMIT, { input: { recalls: [fine(a)] } });
      expectErrorCode(noToken, 'UNAUTHENTICATED');
    });
  });

  describe('inspection', () => {
    let team: Team;
    /** The visible events, oldest first, as submitted. */
    let visible: { id: string; spaceId: string; quality: Quality | null; used: boolean; answerSupported: boolean | null; contractVersion: string }[];
    let hidden: string[];

    beforeAll(async () => {
      team = await newTeam(4);
      const { admin, member, spaces } = team;
      const [main, toSeal, toRetire, toBump] = spaces;
      visible = [];
      hidden = [];
      const judgments: [Quality | null, boolean, boolean | null, string][] = [
        ['HIGH', true, true, 'c.v1'],
        ['LOW', true, false, 'c.v1'],
        [null, false, null, 'c.v2'],
        ['MEDIUM', true, true, 'c.v2'],
        ['HIGH', false, false, 'c.v1'],
      ];
      for (const [quality, used, answerSupported, contractVersion] of judgments) {
        const recall = await recallEvent(member, { spaceId: main, contractVersion });
        const item = { recallEventId: recall, used, answerSupported, quality, feedbackComment: quality === 'LOW' ? 'Weak.' : null };
        const [id] = (await submitOk(member, [item])).feedbackEventIds;
        visible.push({ id, spaceId: main, quality, used, answerSupported, contractVersion });
      }
      for (const space of [toSeal, toRetire, toBump]) {
        const [id] = (await submitOk(member, [fine(await recallEvent(member, { spaceId: space, contractVersion: 'c.v1' }))])).feedbackEventIds;
        hidden.push(id);
      }
      await ok(t, SEAL, { s: toSeal }, admin.token);
      await ok(t, RETIRE, { s: toRetire }, admin.token);
      await ok(t, BUMP, { s: toBump }, admin.token);
      const [id] = (await submitOk(member, [fine(await recallEvent(member, { spaceId: toBump, contractVersion: 'c.v2' }))])).feedbackEventIds;
      visible.push({ id, spaceId: toBump, quality: 'HIGH', used: true, answerSupported: true, contractVersion: 'c.v2' });
    });

    const list = async (who: TestIdentity, variables: Record<string, unknown> = {}) => (await ok<{ feedbackEvents: Connection }>(t, FEEDBACK_EVENTS, { first: 100, ...variables }, who.token)).feedbackEvents;
    const newestFirst = () => [...visible].reverse().map((v) => v.id);

    it('R-FB-8 lists only events whose space is ACTIVE at their generation, newest first; hidden ones are not gettable', async () => {
      const { admin } = team;
      const page = await list(admin);
      expect(page.edges.map((e) => e.node.id)).toEqual(newestFirst());
      expect(page.pageInfo.hasNextPage).toBe(false);
      const bumped = page.edges[0].node;
      expect(bumped).toMatchObject({ spaceId: team.spaces[3], spaceGeneration: 2 });
      for (const id of hidden) expect((await ok<{ feedbackEvent: unknown }>(t, FEEDBACK_EVENT, { id }, admin.token)).feedbackEvent).toBeNull();
      for (const { id } of visible) expect((await ok<{ feedbackEvent: { id: string } | null }>(t, FEEDBACK_EVENT, { id }, admin.token)).feedbackEvent?.id).toBe(id);
      // The rows of hidden events are kept, only not shown.
      expect(await count('id = any($1)', [hidden])).toBe(3);
    });

    it('R-FB-8 R-TN-5 another team\'s admin sees none of them', async () => {
      const stranger = await newTeam();
      expect((await list(stranger.admin)).edges).toEqual([]);
      expect((await ok<{ feedbackEvent: unknown }>(t, FEEDBACK_EVENT, { id: visible[0].id }, stranger.admin.token)).feedbackEvent).toBeNull();
      expect(await ok<{ feedbackMetrics: MetricsRow[] }>(t, METRICS, {}, stranger.admin.token)).toEqual({ feedbackMetrics: [] });
    });

    it('R-FB-8 R-FB-9 a non-admin gets FORBIDDEN from feedbackEvents, feedbackEvent and feedbackMetrics', async () => {
      for (const [query, variables] of [
        [FEEDBACK_EVENTS, {}],
        [FEEDBACK_EVENT, { id: visible[0].id }],
        [METRICS, {}],
      ] as const) {
        const res = await gql(t, query, variables, team.member.token);
        expectErrorCode(res, 'FORBIDDEN');
      }
    });

    it('R-FB-8 pagination with first/after walks every event exactly once, newest first', async () => {
      for (const first of [1, 2, 4]) {
        const seen: string[] = [];
        let after: string | null = null;
        let pages = 0;
        for (;;) {
          const page: Connection = await list(team.admin, { first, after });
          pages += 1;
          expect(page.edges.length).toBeLessThanOrEqual(first);
          seen.push(...page.edges.map((e) => e.node.id));
          if (page.edges.length > 0) expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
          expect(pages).toBeLessThan(20);
        }
        expect(seen).toEqual(newestFirst());
        expect(pages).toBe(Math.ceil(visible.length / first));
      }
      expectErrorCode(await gql(t, FEEDBACK_EVENTS, { first: 2, after: 'not-a-cursor' }, team.admin.token), 'BAD_USER_INPUT', { field: 'after' });
      expectErrorCode(await gql(t, FEEDBACK_EVENTS, { first: 0 }, team.admin.token), 'BAD_USER_INPUT', { field: 'first' });
    });

    it('R-FB-8 each filter narrows the list: space, time range, quality, used, answerSupported, contract version', async () => {
      const { admin, spaces } = team;
      const ids = async (filter: Record<string, unknown>) => (await list(admin, { filter })).edges.map((e) => e.node.id);
      const expected = (keep: (v: (typeof visible)[number], index: number) => boolean) => [...visible.filter(keep)].reverse().map((v) => v.id);

      expect(await ids({ spaceId: spaces[3] })).toEqual(expected((v) => v.spaceId === spaces[3]));
      expect(await ids({ spaceId: spaces[0] })).toEqual(expected((v) => v.spaceId === spaces[0]));
      expect(await ids({ spaceId: spaces[1] })).toEqual([]);
      expect(await ids({ quality: 'HIGH' })).toEqual(expected((v) => v.quality === 'HIGH'));
      expect(await ids({ quality: 'LOW' })).toEqual(expected((v) => v.quality === 'LOW'));
      expect(await ids({ used: false })).toEqual(expected((v) => !v.used));
      expect(await ids({ used: true })).toEqual(expected((v) => v.used));
      expect(await ids({ answerSupported: true })).toEqual(expected((v) => v.answerSupported === true));
      expect(await ids({ answerSupported: false })).toEqual(expected((v) => v.answerSupported === false));
      expect(await ids({ contractVersion: 'c.v2' })).toEqual(expected((v) => v.contractVersion === 'c.v2'));
      expect(await ids({ contractVersion: 'c.v1', used: true })).toEqual(expected((v) => v.contractVersion === 'c.v1' && v.used));
      expect(expected((v) => v.contractVersion === 'c.v1' && v.used)).toHaveLength(2);

      // Time range: since is inclusive, until exclusive (ms-precision boundaries from createdAt).
      const all = (await list(admin)).edges.map((e) => e.node).reverse();
      const since = all[2].createdAt;
      const until = all[4].createdAt;
      expect(await ids({ since, until })).toEqual([all[3].id, all[2].id]);
      expect(await ids({ since })).toEqual(all.slice(2).map((e) => e.id).reverse());
      expect(await ids({ until })).toEqual(all.slice(0, 4).map((e) => e.id).reverse());
      const bad = await gql(t, FEEDBACK_EVENTS, { filter: { spaceId: 'not-a-uuid' } }, admin.token);
      expectErrorCode(bad, 'BAD_USER_INPUT');
    });
  });

  describe('feedbackMetrics', () => {
    it('R-FB-9 rates, average quality and event counts match a hand-computed fixture for every groupBy; hidden events are not counted', async () => {
      const { admin, member, spaces } = await newTeam(2);
      // #  contract fusion  freshness       used  supported quality missing irrelevant
      // 1  m.v1     rrf     synchronous     T     T         HIGH    -       -
      // 2  m.v1     rrf     vector_pending  T     F         LOW     T       T
      // 3  m.v1     single  synchronous     F     null      null    F       F
      // 4  m.v2     rrf     vector_pending  T     T         MEDIUM  F       T
      // 5  m.v2     single  synchronous     F     F         LOW     T       F
      // 6  m.v2     single  (none)          T     T         HIGH    null    null
      const fixture: [string, string, string | null, Omit<FeedbackInput, 'recallEventId'>][] = [
        ['m.v1', 'rrf', 'synchronous', { used: true, answerSupported: true, quality: 'HIGH' }],
        ['m.v1', 'rrf', 'vector_pending', { used: true, answerSupported: false, quality: 'LOW', missingContext: true, irrelevant: true, feedbackComment: 'Stale.' }],
        ['m.v1', 'single', 'synchronous', { used: false, answerSupported: null, quality: null, missingContext: false, irrelevant: false }],
        ['m.v2', 'rrf', 'vector_pending', { used: true, answerSupported: true, quality: 'MEDIUM', missingContext: false, irrelevant: true, feedbackComment: 'One bad hit.' }],
        ['m.v2', 'single', 'synchronous', { used: false, answerSupported: false, quality: 'LOW', missingContext: true, irrelevant: false, feedbackComment: 'Nothing useful.' }],
        ['m.v2', 'single', null, { used: true, answerSupported: true, quality: 'HIGH', missingContext: null, irrelevant: null }],
      ];
      const items: FeedbackInput[] = [];
      for (const [contractVersion, fusionMode, searchFreshness, judgment] of fixture) {
        items.push({ recallEventId: await recallEvent(member, { spaceId: spaces[0], contractVersion, fusionMode, searchFreshness }), ...judgment });
      }
      expect(await submitOk(member, items)).toMatchObject({ recordedCount: 6, error: null });
      // A seventh event, in a space sealed afterwards: never counted.
      const sealedRecall = await recallEvent(member, { spaceId: spaces[1], contractVersion: 'm.v1', fusionMode: 'rrf', searchFreshness: 'synchronous' });
      expect((await submitOk(member, [{ recallEventId: sealedRecall, used: true, answerSupported: true, quality: 'LOW', missingContext: true, irrelevant: true, feedbackComment: 'x' }])).error).toBeNull();
      await ok(t, SEAL, { s: spaces[1] }, admin.token);

      const metrics = async (groupBy?: string, filter?: Record<string, unknown>) =>
        (await ok<{ feedbackMetrics: MetricsRow[] }>(t, METRICS, { groupBy, filter }, admin.token)).feedbackMetrics;
      type Expected = Omit<MetricsRow, 'group'>;
      function expectRows(rows: MetricsRow[], expected: Record<string, Expected>) {
        const key = (g: string | null) => (g === null ? '(null)' : g);
        expect(rows.map((r) => key(r.group)).sort()).toEqual(Object.keys(expected).sort());
        for (const row of rows) {
          const want = expected[key(row.group)];
          expect(row.events).toBe(want.events);
          expect(row.usedRate).toBeCloseTo(want.usedRate, 10);
          expect(row.answerSupportedRate).toBeCloseTo(want.answerSupportedRate, 10);
          if (want.averageQuality === null) expect(row.averageQuality).toBeNull();
          else expect(row.averageQuality).toBeCloseTo(want.averageQuality, 10);
          expect(row.missingContextRate).toBeCloseTo(want.missingContextRate, 10);
          expect(row.irrelevantRate).toBeCloseTo(want.irrelevantRate, 10);
        }
      }

      // All six: used 1,2,4,6; supported 1,4,6 (null counts as not); quality (3+1+2+1+3)/5; missing 2,5; irrelevant 2,4.
      const all: Expected = { events: 6, usedRate: 4 / 6, answerSupportedRate: 3 / 6, averageQuality: 10 / 5, missingContextRate: 2 / 6, irrelevantRate: 2 / 6 };
      expectRows(await metrics(), { '(null)': all });
      expectRows(await metrics('NONE'), { '(null)': all });

      expectRows(await metrics('CONTRACT_VERSION'), {
        // 1, 2, 3: used 2/3, supported 1/3, quality (3+1)/2, missing 1/3, irrelevant 1/3
        'm.v1': { events: 3, usedRate: 2 / 3, answerSupportedRate: 1 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 1 / 3 },
        // 4, 5, 6: used 2/3, supported 2/3, quality (2+1+3)/3, missing 1/3, irrelevant 1/3
        'm.v2': { events: 3, usedRate: 2 / 3, answerSupportedRate: 2 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 1 / 3 },
      });
      expectRows(await metrics('FUSION_MODE'), {
        // 1, 2, 4: used 3/3, supported 2/3, quality (3+1+2)/3, missing 1/3, irrelevant 2/3
        rrf: { events: 3, usedRate: 1, answerSupportedRate: 2 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 2 / 3 },
        // 3, 5, 6: used 1/3, supported 1/3, quality (1+3)/2, missing 1/3, irrelevant 0
        single: { events: 3, usedRate: 1 / 3, answerSupportedRate: 1 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 0 },
      });
      expectRows(await metrics('SEARCH_FRESHNESS'), {
        // 1, 3, 5: used 1/3, supported 1/3, quality (3+1)/2, missing 1/3, irrelevant 0
        synchronous: { events: 3, usedRate: 1 / 3, answerSupportedRate: 1 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 0 },
        // 2, 4: used 1, supported 1/2, quality (1+2)/2, missing 1/2, irrelevant 1
        vector_pending: { events: 2, usedRate: 1, answerSupportedRate: 1 / 2, averageQuality: 1.5, missingContextRate: 1 / 2, irrelevantRate: 1 },
        // 6
        '(null)': { events: 1, usedRate: 1, answerSupportedRate: 1, averageQuality: 3, missingContextRate: 0, irrelevantRate: 0 },
      });

      // The filter applies before grouping; a group without any quality has a null average.
      expectRows(await metrics('FUSION_MODE', { contractVersion: 'm.v1' }), {
        // 1, 2
        rrf: { events: 2, usedRate: 1, answerSupportedRate: 1 / 2, averageQuality: 2, missingContextRate: 1 / 2, irrelevantRate: 1 / 2 },
        // 3
        single: { events: 1, usedRate: 0, answerSupportedRate: 0, averageQuality: null, missingContextRate: 0, irrelevantRate: 0 },
      });
      expectRows(await metrics('NONE', { quality: 'LOW' }), {
        // 2, 5
        '(null)': { events: 2, usedRate: 1 / 2, answerSupportedRate: 0, averageQuality: 1, missingContextRate: 1, irrelevantRate: 1 / 2 },
      });
      expectRows(await metrics('NONE', { spaceId: spaces[1] }), {});
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
        const row = (await t.sql.query(`select count(*)::int as n, md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as h from "${table}" t`)).rows[0];
        out[table] = { n: row.n, h: row.h };
      }
      return out;
    }

    it('R-FB-6 submissions (recorded, partially failed, replayed, disabled) change no table but feedback_events', async () => {
      const { admin, member, spaces } = await newTeam(2);
      const recalls = await recallEvents(member, spaces[0], 3);
      const stale = await recallEvent(member, { spaceId: spaces[1] });
      await ok(t, BUMP, { s: spaces[1] }, admin.token);
      // A recallMemory recall too, so the snapshot tables hold rows of this team.
      const c = crypto.randomUUID();
      await ok(t, RECORD, { input: [toolResult(member.spaceId, c, { toolOutput: { note: 'boundaryword' } })] }, member.token);
      const internal = (await ok<{ recallMemory: { recallEventId: string; results: { ref: Required<Ref> }[] } }>(t, RECALL, { s: member.spaceId, q: 'boundaryword' }, member.token)).recallMemory;
      // Every request resolves the actor first: make sure nothing is provisioned during the window.
      const before = await fingerprint();
      expect(Object.keys(before)).toEqual(expect.arrayContaining(['recall_events', 'spaces', 'feature_flags', 'users', 'teams']));
      const feedbackBefore = await teamRows(member.teamId);

      const seedLike: FeedbackInput = {
        recallEventId: recalls[0],
        used: true,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: 'Returned stale UI Relationships instead of the button behavior.',
        irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_ok', rank: 1 }],
        hypothesisFeedback: [{ hypothesisId: 'hyp_ok', used: false, quality: 'LOW', contradicted: true, feedbackComment: 'The source Relationships were stale.' }],
        clientFeedbackId: 'boundary-0',
      };
      const internalItem = fine(internal.recallEventId, { irrelevant: true, feedbackComment: 'Not it.', irrelevantResultRefs: [internal.results[0].ref] });
      expect(await submitOk(member, [seedLike, fine(recalls[1]), internalItem])).toMatchObject({ recordedCount: 3, error: null });
      expectStopped(await submitOk(member, [fine(recalls[2]), fine(stale)]), 1, 'RECALL_STALE', 'DROP_FAILED_AND_RESUBMIT_REST');
      expect((await submitOk(member, [seedLike])).recordedCount).toBe(1);
      expectErrorCode(await submit(member, Array.from({ length: 51 }, () => fine(recalls[0]))), 'BAD_USER_INPUT');

      const after = await fingerprint();
      expect(after).toEqual(before);
      expect(await teamRows(member.teamId)).toBe(feedbackBefore + 4);
    });
  });

  describe('Prometheus metrics', () => {
    const SUBMISSIONS = 'recall_feedback_submissions_total';
    const ITEMS = 'recall_feedback_items_total';
    const MISSING = 'recall_feedback_missing_context_total';
    const IRRELEVANT = 'recall_feedback_irrelevant_total';
    const scrape = async () => (await request(t.app.getHttpServer()).get('/metrics')).text;
    /** Samples of a counter, keyed by their label set as printed. */
    function samples(text: string, name: string): Map<string, number> {
      const out = new Map<string, number>();
      for (const line of text.split('\n')) {
        const match = new RegExp(`^${name}(\\{[^}]*\\})? ([0-9.e+]+)$`).exec(line);
        if (match) out.set(match[1] ?? '', Number(match[2]));
      }
      return out;
    }
    const value = (text: string, name: string, labels = '') => samples(text, name).get(labels) ?? 0;

    it('R-FB-9 the four counters move by the submitted judgments, with fixed-enum labels only and no id or comment text', async () => {
      const { admin, member } = await newTeam();
      const recalls = await recallEvents(member, member.spaceId, 4);
      const before = await scrape();
      const secretComment = 'Customer ACME-7781 said the invoice button broke';
      const clientId = 'client-key-unique-5f1c';

      // recorded: 2 items
      await submitOk(member, [
        fine(recalls[0]),
        {
          recallEventId: recalls[1],
          used: false,
          quality: 'LOW',
          missingContext: true,
          irrelevant: true,
          feedbackComment: secretComment,
          irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 2 }],
          hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: secretComment }],
          clientFeedbackId: clientId,
        },
      ]);
      // partial: 1 item recorded, then a missing comment
      await submitOk(member, [fine(recalls[2], { answerSupported: false, quality: 'MEDIUM' }), fine(recalls[3], { irrelevant: true })]);
      // rejected: the first item fails
      await submitOk(member, [fine(recalls[3], { missingContext: true })]);
      // disabled
      await setFlag(t, admin, FLAG, false);
      await submit(member, [fine(recalls[3])]);
      await setFlag(t, admin, FLAG, true);

      const after = await scrape();
      const delta = (name: string, labels = '') => value(after, name, labels) - value(before, name, labels);
      expect(delta(SUBMISSIONS, '{outcome="recorded"}')).toBe(1);
      expect(delta(SUBMISSIONS, '{outcome="partial"}')).toBe(1);
      expect(delta(SUBMISSIONS, '{outcome="rejected"}')).toBe(1);
      expect(delta(SUBMISSIONS, '{outcome="disabled"}')).toBe(1);
      expect(delta(ITEMS, '{used="true",answer_supported="true",quality="HIGH"}')).toBe(1);
      expect(delta(ITEMS, '{used="false",answer_supported="unknown",quality="LOW"}')).toBe(1);
      expect(delta(ITEMS, '{used="true",answer_supported="false",quality="MEDIUM"}')).toBe(1);
      expect([...samples(after, ITEMS).keys()].reduce((sum, k) => sum + value(after, ITEMS, k) - value(before, ITEMS, k), 0)).toBe(3);
      expect(delta(MISSING)).toBe(1);
      expect(delta(IRRELEVANT)).toBe(1);

      // Fixed label names and values only.
      const allowed: Record<string, Record<string, string[]>> = {
        [SUBMISSIONS]: { outcome: ['recorded', 'partial', 'rejected', 'disabled'] },
        [ITEMS]: { used: ['true', 'false'], answer_supported: ['true', 'false', 'unknown'], quality: ['LOW', 'MEDIUM', 'HIGH', 'none'] },
        [MISSING]: {},
        [IRRELEVANT]: {},
      };
      for (const [name, labels] of Object.entries(allowed)) {
        const seen = samples(after, name);
        expect(seen.size).toBeGreaterThan(0);
        for (const key of seen.keys()) {
          const pairs = [...key.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]] as const);
          expect(pairs.map(([k]) => k).sort()).toEqual(Object.keys(labels).sort());
          for (const [k, v] of pairs) expect(labels[k]).toContain(v);
        }
      }
      const lines = after.split('\n').filter((l) => l.startsWith('recall_feedback_'));
      for (const line of lines) expect(line).toMatch(/^recall_feedback_(submissions|items|missing_context|irrelevant)_total(\{[^}]*\})? \d+$/);

      // No id, comment or ref text anywhere in the exposition.
      const ids = (await t.sql.query('select id, recall_event_id from feedback_events where team_id = $1', [member.teamId])).rows.flatMap((r) => [r.id, r.recall_event_id]);
      for (const secret of [...ids, ...recalls, secretComment, 'ACME-7781', clientId, 'ev_button', 'hyp_ok', member.teamId, member.userId, member.spaceId]) {
        expect(after).not.toContain(secret);
      }
    });
  });
});
