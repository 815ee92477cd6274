import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ErrorCode } from '../../common/errors/app-error';
import { type RecallEventRecord, ResultRefType } from '../../recall-events';
import { type ActorContext, FeatureFlagKey } from '../../tenancy';
import { FEEDBACK_ID } from '../../../test/support/feedback-api';
import { recallEventServiceFor } from '../../../test/support/recall-services';
import * as medium from '../../../test/support/request-orm';
import { feedbackServiceFor } from '../../../test/support/retention-service';
import { testConfig } from '../../../test/support/tool-results-service';
import type { FeedbackService } from '../feedback.service';
import { type FeedbackItem, FeedbackNextAction, FeedbackQuality } from '../feedback-vocabulary';

const QUERY = 'why does the save button do nothing';
const RESULTS = [
  { type: ResultRefType.RELATIONSHIP, id: 'r_ok', rank: 1 },
  { type: ResultRefType.EVIDENCE, id: 'ev_button', rank: 2 },
  { type: ResultRefType.HYPOTHESIS, id: 'hyp_ok', rank: 3 },
];
/** An external retriever's recall, as the recall events being judged are stored. */
const RETRIEVED = { query: QUERY, contractVersion: 'graph-retriever.v2', results: RESULTS };
const { CORRECT_AND_RESUBMIT_FROM_FAILED: CORRECT, DROP_FAILED_AND_RESUBMIT_REST: DROP } = FeedbackNextAction;
/** Well-formed, never stored. */
const UNKNOWN_EVENT = 'rec_01ARZ3NDEKTSV4RRFFQ69G5FAV';

/** An item judged used and HIGH (no comment needed), with the overrides on top. */
const fine = (recallEventId: string, more: Partial<FeedbackItem> = {}): FeedbackItem => ({
  recallEventId,
  used: true,
  quality: FeedbackQuality.HIGH,
  ...more,
});

/**
 * Feedback submission on a real database, as the request role under the actor's tenant scope
 * (R-FB-1..7): items in order, each committed before the next; the first failure stops the batch.
 */
describe('FeedbackService (medium, real PostgreSQL)', () => {
  let db: medium.RequestOrm;
  let service: FeedbackService;
  let alice: ActorContext, bob: ActorContext, mallory: ActorContext;

  const recallEvent = (actor: ActorContext): Promise<RecallEventRecord> =>
    db.as(actor, () => recallEventServiceFor(db.em).recordExternal(actor, { spaceId: actor.allowedSpaces[0].id, ...RETRIEVED }));
  const submit = (actor: ActorContext, items: FeedbackItem[]) => db.as(actor, () => service.submit(actor, items));
  const count = async (where: string, params: unknown[]) =>
    Number((await db.owner.execute<{ n: string }[]>(`select count(*) as n from feedback_events where ${where}`, params))[0].n);

  beforeAll(async () => {
    Logger.overrideLogger(false);
    db = await medium.createRequestOrm();
    service = feedbackServiceFor(db.em, testConfig({ FEATURE_FLAG_CACHE_TTL_MS: '0' }));
    ({ alice, bob, mallory } = await medium.seedTenants(db, [FeatureFlagKey.RECALL_FEEDBACK_ENABLED]));
  });
  afterAll(() => db.close());

  it("R-FB-1 R-FB-7 a valid batch stores one event per item, in order, each copying its recall's account (profile_id: its user, whose recall; actor_id: its submitter, who judged)", async () => {
    const event = await recallEvent(alice);
    const judged: FeedbackItem = {
      recallEventId: event.id,
      used: false,
      answerSupported: false,
      quality: FeedbackQuality.LOW,
      irrelevant: true,
      feedbackComment: 'the evidence is about another button',
      irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button' }],
      hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: 'the log says otherwise' }],
      clientFeedbackId: 'k-judged',
    };
    // An admin judges a teammate's recall (a member only their own).
    const reviewer = await medium.actorOf(db, bob.teamId, bob.userId, medium.ADMIN_SCOPES);
    const outcome = await submit(reviewer, [fine(event.id), judged]);
    expect(outcome).toEqual({
      recordedCount: 2,
      feedbackEventIds: [expect.stringMatching(FEEDBACK_ID), expect.stringMatching(FEEDBACK_ID)],
      error: null,
    });

    const rows = await db.owner.execute(
      `select id, recall_event_id, team_id, profile_id, actor_id, space_id, space_generation, query_fingerprint, contract_version, ranking_version,
              returned_refs, tool_names, used, answer_supported, quality, missing_context, irrelevant, feedback_comment, irrelevant_result_refs,
              hypothesis_feedback, client_feedback_id, item_digest
         from feedback_events where recall_event_id = ? order by created_at`,
      [event.id],
    );
    const account = {
      recall_event_id: event.id,
      team_id: bob.teamId,
      profile_id: alice.userId,
      actor_id: bob.userId,
      space_id: alice.allowedSpaces[0].id,
      space_generation: 1,
      query_fingerprint: createHash('sha256').update(QUERY).digest('hex'),
      contract_version: 'graph-retriever.v2',
      ranking_version: null,
      returned_refs: RESULTS,
      tool_names: [],
    };
    const unjudged = { answer_supported: null, missing_context: null, irrelevant: null, feedback_comment: null, client_feedback_id: null };
    expect(rows).toEqual([
      {
        ...account,
        ...unjudged,
        id: outcome.feedbackEventIds[0],
        used: true,
        quality: 'HIGH',
        irrelevant_result_refs: [],
        hypothesis_feedback: [],
        item_digest: null,
      },
      {
        ...account,
        id: outcome.feedbackEventIds[1],
        used: false,
        answer_supported: false,
        quality: 'LOW',
        missing_context: null,
        irrelevant: true,
        feedback_comment: 'the evidence is about another button',
        // Stored at the rank the recall returned it.
        irrelevant_result_refs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 2 }],
        hypothesis_feedback: [
          { hypothesisId: 'hyp_ok', used: null, quality: null, contradicted: true, feedbackComment: 'the log says otherwise' },
        ],
        client_feedback_id: 'k-judged',
        item_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
  });

  it('R-FB-2 R-FB-3 a batch whose 3rd item lacks its required comment records the first two, stops at 2, stores nothing after; resubmitted corrected from 2 it records the rest', async () => {
    const [first, second, third] = [await recallEvent(alice), await recallEvent(alice), await recallEvent(alice)];
    const lacking = fine(second.id, { quality: FeedbackQuality.LOW });
    const outcome = await submit(alice, [fine(first.id), fine(first.id), lacking, fine(third.id)]);
    expect(outcome.error).toEqual({
      failedIndex: 2,
      code: 'COMMENT_REQUIRED',
      message: 'feedbackComment is required because quality is LOW.',
      nextAction: CORRECT,
      remediation: 'Add a feedbackComment describing the retrieval failure (without private user content), then resubmit from this item.',
    });
    expect(outcome.recordedCount).toBe(2);
    const stored = await db.owner.execute<{ id: string }[]>(
      'select id from feedback_events where recall_event_id = ? order by created_at',
      [first.id],
    );
    expect(outcome.feedbackEventIds).toEqual(stored.map((r) => r.id));
    expect(await count('recall_event_id in (?, ?)', [second.id, third.id])).toBe(0);

    const rest = await submit(alice, [{ ...lacking, feedbackComment: 'nothing about the button' }, fine(third.id)]);
    expect(rest).toMatchObject({ recordedCount: 2, error: null });
    expect(await count('recall_event_id in (?, ?)', [second.id, third.id])).toBe(2);
  });

  it('R-FB-3 R-FB-4 each failing item stops the batch at its index with its exact code, message and nextAction; the item before it is recorded', async () => {
    const wrongRank = {
      irrelevant: true,
      feedbackComment: 'off topic',
      irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 1 }],
    };
    const cases: [(id: string) => FeedbackItem, string, (id: string) => string, FeedbackNextAction][] = [
      [() => fine(UNKNOWN_EVENT), 'RECALL_NOT_FOUND', () => `Recall event ${UNKNOWN_EVENT} was not found.`, DROP],
      [
        (id) => fine(id, wrongRank),
        'REF_NOT_IN_RECALL',
        (id) => `irrelevantResultRefs.0 (EVIDENCE ev_button at rank 1) is not a result of recall ${id}: it was returned at rank 2.`,
        CORRECT,
      ],
      [
        (id) => fine(id, { hypothesisFeedback: [{ hypothesisId: 'r_ok', used: true }] }),
        'HYPOTHESIS_NOT_IN_RECALL',
        (id) => `hypothesisFeedback.0 names hypothesis r_ok, which recall ${id} did not return.`,
        CORRECT,
      ],
      [
        (id) => fine(id, { feedbackComment: 'x'.repeat(1001) }),
        'COMMENT_TOO_LONG',
        () => 'feedbackComment is 1001 characters; the limit is 1000.',
        CORRECT,
      ],
    ];
    for (const [item, code, message, nextAction] of cases) {
      const event = await recallEvent(alice);
      expect(await submit(alice, [fine(event.id), item(event.id)])).toEqual({
        recordedCount: 1,
        feedbackEventIds: [expect.stringMatching(FEEDBACK_ID)],
        error: { failedIndex: 1, code, message: message(event.id), nextAction, remediation: expect.stringMatching(/^[A-Z].{20,}\.$/) },
      });
      expect(await count('recall_event_id = ?', [event.id])).toBe(1);
    }
  });

  it("R-FB-4 R-TN-5 R-TN-8 another team's recall event, and a member's teammate's, read as RECALL_NOT_FOUND; an admin outside its space gets RECALL_STALE; nothing is written", async () => {
    const event = await recallEvent(alice);
    expect(await submit(mallory, [fine(event.id)])).toEqual({
      recordedCount: 0,
      feedbackEventIds: [],
      error: expect.objectContaining({ failedIndex: 0, code: 'RECALL_NOT_FOUND', message: `Recall event ${event.id} was not found.` }),
    });
    expect((await submit(bob, [fine(event.id)])).error).toEqual(
      expect.objectContaining({ failedIndex: 0, code: 'RECALL_NOT_FOUND', message: `Recall event ${event.id} was not found.` }),
    );
    const outsider = crypto.randomUUID();
    await db.owner.execute('insert into users (id, team_id) values (?, ?)', [outsider, alice.teamId]);
    expect((await submit(await medium.actorOf(db, alice.teamId, outsider, medium.ADMIN_SCOPES), [fine(event.id)])).error).toMatchObject({
      failedIndex: 0,
      code: 'RECALL_STALE',
      message: `Recall event ${event.id} can no longer take feedback: its space is sealed, retired or no longer yours.`,
      nextAction: DROP,
    });
    expect(await count('recall_event_id = ? or team_id = ?', [event.id, mallory.teamId])).toBe(0);
  });

  it('R-FB-4 a recall of an earlier generation, then of a sealed space, is RECALL_STALE; a recall of the current generation is recorded', async () => {
    const team = await medium.seedTeam(db, { flags: [FeatureFlagKey.RECALL_FEEDBACK_ENABLED] });
    const before = await medium.actorOf(db, team.teamId, team.userIds[0]);
    const old = await recallEvent(before);
    await db.owner.execute('update spaces set generation = 2 where id = ?', [team.spaceId]);
    const after = await medium.actorOf(db, team.teamId, team.userIds[0]);
    const current = await recallEvent(after);
    expect((await submit(after, [fine(old.id), fine(current.id)])).error).toMatchObject({
      failedIndex: 0,
      code: 'RECALL_STALE',
      message: `Recall event ${old.id} can no longer take feedback: its space moved on to generation 2 (the recall was at 1).`,
      nextAction: DROP,
    });
    expect(await submit(after, [fine(current.id)])).toMatchObject({ recordedCount: 1, error: null });

    await db.owner.execute(`update spaces set status = 'SEALED' where id = ?`, [team.spaceId]);
    const sealed = await medium.actorOf(db, team.teamId, team.userIds[0]);
    expect((await submit(sealed, [fine(current.id)])).error).toMatchObject({ failedIndex: 0, code: 'RECALL_STALE' });
    expect(await count('team_id = ?', [team.teamId])).toBe(1);
  });

  it("R-FB-5 a replayed clientFeedbackId returns the recorded id and records nothing; the key with other content is CONFLICT, the recorded event unchanged; keys are the actor's own", async () => {
    const event = await recallEvent(alice);
    const batch = [
      fine(event.id, { clientFeedbackId: 'k-a' }),
      fine(event.id, { clientFeedbackId: 'k-b', quality: FeedbackQuality.MEDIUM }),
    ];
    const first = await submit(alice, batch);
    expect(first).toMatchObject({ recordedCount: 2, error: null });
    const [a, b] = first.feedbackEventIds;
    // The same items spelled with explicit nulls, in one batch twice over: a blind replay.
    const spelled = batch.map((item) => ({ ...item, missingContext: null, hypothesisFeedback: [] }));
    expect(await submit(alice, [...spelled, spelled[0]])).toEqual({ recordedCount: 3, feedbackEventIds: [a, b, a], error: null });
    expect(await count('recall_event_id = ?', [event.id])).toBe(2);

    const changed = await submit(alice, [batch[0], { ...batch[1], quality: FeedbackQuality.HIGH }]);
    expect(changed).toEqual({
      recordedCount: 1,
      feedbackEventIds: [a],
      error: {
        failedIndex: 1,
        code: 'CONFLICT',
        message: `clientFeedbackId k-b is already recorded (as ${b}) for a different item.`,
        nextAction: DROP,
        remediation:
          'Drop this item (the recorded one stands) or send the changed judgment under a new clientFeedbackId, and resubmit the items after it.',
      },
    });
    expect(await db.owner.execute('select quality from feedback_events where id = ?', [b])).toEqual([{ quality: 'MEDIUM' }]);
    // Bob's k-a (an admin's, judging Alice's recall) is another key: a new event.
    const bobs = await submit(await medium.actorOf(db, bob.teamId, bob.userId, medium.ADMIN_SCOPES), [batch[0]]);
    expect(bobs).toMatchObject({ recordedCount: 1, error: null });
    expect(bobs.feedbackEventIds[0]).not.toBe(a);
    expect(await count('recall_event_id = ?', [event.id])).toBe(3);
  });

  it('R-FB-1 with recall_feedback_enabled off the whole batch is FEATURE_DISABLED and nothing is recorded', async () => {
    const team = await medium.seedTeam(db);
    const carol = await medium.actorOf(db, team.teamId, team.userIds[0]);
    const event = await recallEvent(carol);
    await expect(submit(carol, [fine(event.id)])).rejects.toMatchObject({
      code: ErrorCode.FEATURE_DISABLED,
      message: 'The feature recall_feedback_enabled is disabled for this team; an admin can enable it with setFeatureFlag.',
    });
    expect(await count('team_id = ?', [team.teamId])).toBe(0);
  });

  it('R-FB-2 a transient fault recording item 1 stops there with RETRY_FROM_FAILED, item 0 kept; any other database error is thrown', async () => {
    const event = await recallEvent(alice);
    await db.owner.execute(
      `create function feedback_test_fault() returns trigger language plpgsql as $$ begin raise exception 'injected' using errcode = new.feedback_comment; end $$;
       create trigger feedback_test_fault before insert on feedback_events for each row when (new.feedback_comment in ('40001', '23514')) execute function feedback_test_fault();`,
    );
    try {
      const outcome = await submit(alice, [fine(event.id), fine(event.id, { feedbackComment: '40001' }), fine(event.id)]);
      expect(outcome).toEqual({
        recordedCount: 1,
        feedbackEventIds: [expect.stringMatching(FEEDBACK_ID)],
        error: {
          failedIndex: 1,
          code: 'DATABASE_UNAVAILABLE',
          message: 'The item could not be recorded because of a transient database fault; nothing of it was stored.',
          nextAction: FeedbackNextAction.RETRY_FROM_FAILED,
          remediation: 'Retry from this item, unchanged, after a short wait; the items before it are recorded.',
        },
      });
      expect(await count('recall_event_id = ?', [event.id])).toBe(1);
      // A check violation is no fault of the moment: not the client's to retry.
      await expect(submit(alice, [fine(event.id, { feedbackComment: '23514' })])).rejects.toMatchObject({ code: '23514' });
      expect(await count('recall_event_id = ?', [event.id])).toBe(1);
    } finally {
      await db.owner.execute('drop trigger feedback_test_fault on feedback_events; drop function feedback_test_fault();');
    }
    expect(await submit(alice, [fine(event.id), fine(event.id)])).toMatchObject({ recordedCount: 2, error: null });
    expect(await count('recall_event_id = ?', [event.id])).toBe(3);
  });
});
