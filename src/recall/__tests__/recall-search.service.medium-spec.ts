import { createHash } from 'node:crypto';
import { ErrorCode } from '../../common/errors/app-error';
import { type ActorContext, FeatureFlagKey } from '../../tenancy';
import { EVENT_ID } from '../../../test/support/recall-events-api';
import { recallEventServiceFor, recallReadsFor } from '../../../test/support/recall-services';
import * as medium from '../../../test/support/request-orm';
import { toolResultServicesFor } from '../../../test/support/tool-results-service';
import type { RecallMemoryArgs } from '../recall-search.checks';
import { RecallSearchService } from '../recall-search.service';

/**
 * recallMemory's search on a real database, as the request role under the actor's tenant scope
 * (R-RC-8, R-RC-9): full-text matches over the actor's own snapshots in one allowed space, ranked,
 * and the recall event of exactly the hits, stored by the same statement.
 */
describe('RecallSearchService (medium, real PostgreSQL)', () => {
  let db: medium.RequestOrm;
  let service: RecallSearchService;
  let alice: ActorContext, bob: ActorContext, mallory: ActorContext;

  const search = (actor: ActorContext, args: Partial<RecallMemoryArgs> & { query: string }) =>
    db.as(actor, () => service.search(actor, { spaceId: actor.allowedSpaces[0].id, limit: 10, ...args }));
  const refsOf = (outcome: { results: { ref: { id: string; rank: number } }[] }) => outcome.results.map((r) => [r.ref.id, r.ref.rank]);
  const idsOf = (outcome: { results: { ref: { id: string } }[] }) => outcome.results.map((r) => r.ref.id).sort();

  /** One snapshot per output, in a new conversation of the actor's; their ids. */
  const record = (actor: ActorContext, outputs: unknown[]) =>
    medium.recordCalls(
      db,
      actor,
      outputs.map((toolOutput) => ({ toolOutput })),
    );

  beforeAll(async () => {
    db = await medium.createRequestOrm();
    service = new RecallSearchService(toolResultServicesFor(db.em).reader, recallEventServiceFor(db.em), recallReadsFor(db.em));
    ({ alice, bob, mallory } = await medium.seedTenants(db, [
      FeatureFlagKey.RECALL_FEEDBACK_ENABLED,
      FeatureFlagKey.RECALL_QUERY_TEXT_ENABLED,
    ]));
  });
  afterAll(() => db.close());

  it('R-RC-8 R-RC-9 R-RC-10 finds snapshots by a word, the stronger match first, as dated lines; the event holds exactly the hits', async () => {
    const conversationId = crypto.randomUUID();
    const space = alice.allowedSpaces[0].id;
    // Strong: the word in the input and the output; weak: only in the output, and newer; the third lacks it.
    const [strong, weak] = await medium.recordCalls(
      db,
      alice,
      [
        { toolInput: { topic: 'zephyr' }, toolOutput: { note: 'zephyr' }, createdAt: medium.daysAgo(3) },
        { toolInput: { topic: 'other' }, toolOutput: { note: 'zephyr' }, createdAt: medium.daysAgo(1) },
        { toolName: 'query_kpi_trend', toolOutput: { note: 'mistral' } },
      ],
      conversationId,
    );
    const outcome = await search(alice, { query: '  Zephyr ' });
    expect(refsOf(outcome)).toEqual([
      [strong, 1],
      [weak, 2],
    ]);
    expect(outcome.results.map((r) => r.ref.type)).toEqual(['TOOL_RESULT', 'TOOL_RESULT']);
    expect(outcome.results[1].score).toBeGreaterThan(0);
    expect(outcome.results[0].score).toBeGreaterThan(outcome.results[1].score);
    expect(outcome.results[0].line).toBe(await medium.storedLine(db, strong, 'query_site_data(topic="zephyr")'));
    expect(outcome.results[0].snapshot).toMatchObject({ id: strong, conversationId, spaceId: space, toolName: 'query_site_data' });
    expect(outcome).toMatchObject({
      recallEventId: expect.stringMatching(EVENT_ID),
      suggestedActions: [{ action: 'submit_recall_session_feedback', recallEventId: outcome.recallEventId }],
      degradations: [],
    });
    expect(await medium.recallEventRow(db, outcome.recallEventId)).toEqual({
      team_id: alice.teamId,
      profile_id: alice.userId,
      space_id: space,
      space_generation: 1,
      query_fingerprint: createHash('sha256').update('zephyr').digest('hex'),
      // The team opted in to query texts: stored as typed.
      query_text: '  Zephyr ',
      contract_version: 'recall-ledger.recall.v1',
      ranking_version: 'fts-simple-rank-v1',
      fusion_mode: 'single',
      search_freshness: 'synchronous',
      results: [strong, weak].map((id, i) => ({ type: 'TOOL_RESULT', id, rank: i + 1 })),
      tool_names: ['query_site_data'],
      source: 'INTERNAL',
    });
  });

  it('R-RC-8 matches words as websearch syntax: every word, `or`, `-word`; an id or a price matches as typed', async () => {
    const [both, alpha, beta, codes] = await record(alice, [
      { note: 'alpha beta' },
      { note: 'alpha' },
      { note: 'beta' },
      { sku: 'B0Z0T2PUCW', price: 68.44 },
    ]);
    expect(idsOf(await search(alice, { query: 'alpha beta' }))).toEqual([both]);
    expect(idsOf(await search(alice, { query: 'alpha or beta' }))).toEqual([both, alpha, beta].sort());
    expect(idsOf(await search(alice, { query: 'alpha -beta' }))).toEqual([alpha]);
    expect(idsOf(await search(alice, { query: 'b0z0t2pucw' }))).toEqual([codes]);
    expect(idsOf(await search(alice, { query: '68.44' }))).toEqual([codes]);
    expect(idsOf(await search(alice, { query: '68.45' }))).toEqual([]);
  });

  it("R-RC-8 R-TN-5 a teammate's and another team's snapshots with the word are never returned; another team's space is NOT_FOUND and stores no event", async () => {
    const [own] = await record(alice, [{ note: 'quasar' }]);
    const [bobs] = await record(bob, [{ note: 'quasar' }]);
    const [mallorys] = await record(mallory, [{ note: 'quasar' }]);
    const found = await search(alice, { query: 'quasar' });
    expect(idsOf(found)).toEqual([own]);
    expect((await medium.recallEventRow(db, found.recallEventId))?.results).toEqual([{ type: 'TOOL_RESULT', id: own, rank: 1 }]);
    expect(idsOf(await search(bob, { query: 'quasar' }))).toEqual([bobs]);
    expect(idsOf(await search(mallory, { query: 'quasar' }))).toEqual([mallorys]);

    const before = await medium.recallEventCount(db, 'true', []);
    for (const [who, spaceId] of [
      [mallory, alice.allowedSpaces[0].id],
      [alice, mallory.allowedSpaces[0].id],
    ] as const) {
      await expect(search(who, { spaceId, query: 'quasar' })).rejects.toMatchObject({
        code: ErrorCode.NOT_FOUND,
        message: `Space ${spaceId} was not found.`,
      });
    }
    expect(await medium.recallEventCount(db, 'true', [])).toBe(before);
  });

  it('R-RC-8 R-OP-5 limit keeps the best-ranked hits (the newer on a tie); conversationId, toolName and sinceDays narrow; limit 51 stores nothing', async () => {
    const conversationId = crypto.randomUUID();
    const nebula = (createdAt: Date, toolName = 'query_site_data') => ({ toolName, toolOutput: { note: 'nebula' }, createdAt });
    const ages = [medium.daysAgo(4, 12), medium.daysAgo(3, 12), medium.daysAgo(2, 12), medium.daysAgo(1, 12)];
    const [d4, d3, d2, d1] = await medium.recordCalls(
      db,
      alice,
      ages.map((at) => nebula(at)),
      conversationId,
    );
    const [elsewhere] = await medium.recordCalls(db, alice, [nebula(medium.daysAgo(5), 'query_kpi_trend')]);

    const two = await search(alice, { query: 'nebula', limit: 2 });
    expect(refsOf(two)).toEqual([
      [d1, 1],
      [d2, 2],
    ]);
    expect((await medium.recallEventRow(db, two.recallEventId))?.results).toEqual(
      [d1, d2].map((id, i) => ({ type: 'TOOL_RESULT', id, rank: i + 1 })),
    );
    expect(refsOf(await search(alice, { query: 'nebula' }))).toEqual([d1, d2, d3, d4, elsewhere].map((id, i) => [id, i + 1]));
    expect(idsOf(await search(alice, { query: 'nebula', conversationId }))).toEqual([d1, d2, d3, d4].sort());
    expect(idsOf(await search(alice, { query: 'nebula', toolName: 'query_kpi_trend' }))).toEqual([elsewhere]);
    expect(idsOf(await search(alice, { query: 'nebula', sinceDays: 3 }))).toEqual([d1, d2].sort());

    const before = await medium.recallEventCount(db, 'profile_id = ?', [alice.userId]);
    await expect(search(alice, { query: 'nebula', limit: 51 })).rejects.toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
      message: 'limit must be between 1 and 50.',
      details: { field: 'limit' },
    });
    expect(await medium.recallEventCount(db, 'profile_id = ?', [alice.userId])).toBe(before);
  });

  it('R-RC-8 R-RC-9 no match: no results, and the event is still stored, with no refs', async () => {
    await record(alice, [{ note: 'comet' }]);
    const outcome = await search(alice, { query: 'xylophone' });
    expect(outcome).toMatchObject({ results: [], recallEventId: expect.stringMatching(EVENT_ID), degradations: [] });
    expect(await medium.recallEventRow(db, outcome.recallEventId)).toMatchObject({ profile_id: alice.userId, results: [], tool_names: [] });
  });
});
