import { createHash } from 'node:crypto';
import { countTokens } from '../../common/text/tokenizer';
import { ErrorCode } from '../../common/errors/app-error';
import { type ActorContext, FeatureFlagKey } from '../../tenancy';
import { EVENT_ID } from '../../../test/support/recall-events-api';
import { recallEventServiceFor, recallMetricsFor, recallReadsFor } from '../../../test/support/recall-services';
import * as medium from '../../../test/support/request-orm';
import { testConfig, toolResultServicesFor } from '../../../test/support/tool-results-service';
import { PREVIOUSLY_FETCHED_FOOTER, PREVIOUSLY_FETCHED_HEADER } from '../block/previously-fetched-block';
import { RecallBlockService } from '../recall-block.service';

const blockText = (lines: string[]) => [PREVIOUSLY_FETCHED_HEADER, ...lines, '', PREVIOUSLY_FETCHED_FOOTER].join('\n');
const MESSAGE = 'What did we see last week?';

/**
 * The "Previously fetched" block on a real database, as the request role under the actor's
 * tenant scope (R-RC-1, R-RC-2, R-RC-6, R-RC-9): the conversation's newest snapshots as dated
 * lines within the token budget, and the recall event of exactly the lines shown.
 */
describe('RecallBlockService (medium, real PostgreSQL)', () => {
  let db: medium.RequestOrm;
  let alice: ActorContext, bob: ActorContext, mallory: ActorContext;

  /** The service with the block's token budget (the default, 300, unless given). */
  function blockService(env: Record<string, string> = {}): RecallBlockService {
    const config = testConfig({ FEATURE_FLAG_CACHE_TTL_MS: '0', ...env });
    return new RecallBlockService(
      toolResultServicesFor(db.em, config).reader,
      config,
      recallMetricsFor(),
      recallEventServiceFor(db.em),
      recallReadsFor(db.em),
    );
  }
  const build = (actor: ActorContext, conversationId: string, service = blockService()) =>
    db.as(actor, () => service.build(actor, conversationId, MESSAGE));

  /** `n` calls `tool_0(page=0)` … in a new conversation of the actor's, a day apart, the last the newest; their ids. */
  async function conversationOf(actor: ActorContext, n: number): Promise<{ conversationId: string; ids: string[] }> {
    const conversationId = crypto.randomUUID();
    const calls = Array.from({ length: n }, (_, i) => ({
      toolName: `tool_${i}`,
      toolInput: { page: i },
      toolOutput: { rows: [{ page: i }] },
      createdAt: medium.daysAgo(n - i),
    }));
    return { conversationId, ids: await medium.recordCalls(db, actor, calls, conversationId) };
  }
  const linesOf = (ids: string[], pages: number[]) => Promise.all(pages.map((i) => medium.storedLine(db, ids[i], `tool_${i}(page=${i})`)));

  beforeAll(async () => {
    db = await medium.createRequestOrm();
    ({ alice, bob, mallory } = await medium.seedTenants(db, [FeatureFlagKey.RECALL_FEEDBACK_ENABLED]));
  });
  afterAll(() => db.close());

  it('R-RC-1 R-RC-9 R-RC-10 the newest snapshots first as dated lines with their stored summaries, and an event of exactly those rows', async () => {
    const conversationId = crypto.randomUUID();
    const space = alice.allowedSpaces[0].id;
    const fetched = medium.daysAgo(1);
    const output = { members: [{ name: 'Ada', registered_at: '2026-05-10' }] };
    // Recorded out of date order: the block orders by when the results were fetched.
    const [middle, newest, oldest] = await medium.recordCalls(
      db,
      alice,
      [
        { toolName: 'query_kpi_trend', toolInput: { target: 'memberships' }, toolOutput: output, createdAt: medium.daysAgo(2) },
        { toolInput: { target: 'recent_members' }, toolOutput: output, createdAt: fetched },
        { toolInput: { target: 'signups' }, toolOutput: output, createdAt: medium.daysAgo(3) },
      ],
      conversationId,
    );
    const lines = [
      await medium.storedLine(db, newest, 'query_site_data(target="recent_members")'),
      await medium.storedLine(db, middle, 'query_kpi_trend(target="memberships")'),
      await medium.storedLine(db, oldest, 'query_site_data(target="signups")'),
    ];
    expect(lines[0]).toBe(
      `- ${fetched.toISOString().slice(0, 10)} query_site_data(target="recent_members"): 1 member, last registered 2026-05-10`,
    );

    const block = await build(alice, conversationId);
    const text = blockText(lines);
    expect(block).toMatchObject({ text, tokens: countTokens(text), droppedCount: 0, injected: true, degradations: [] });
    expect(block.lines.map((l) => [l.snapshotId, l.toolName, l.text])).toEqual([
      [newest, 'query_site_data', lines[0]],
      [middle, 'query_kpi_trend', lines[1]],
      [oldest, 'query_site_data', lines[2]],
    ]);
    expect(block.recallEventId).toMatch(EVENT_ID);
    expect(block.suggestedActions).toEqual([{ action: 'submit_recall_session_feedback', recallEventId: block.recallEventId }]);
    expect(await medium.recallEventRow(db, block.recallEventId!)).toEqual({
      team_id: alice.teamId,
      profile_id: alice.userId,
      space_id: space,
      space_generation: 1,
      query_fingerprint: createHash('sha256').update(MESSAGE.toLowerCase()).digest('hex'),
      query_text: null,
      contract_version: 'recall-ledger.recall.v1',
      ranking_version: 'recency-v1',
      fusion_mode: 'single',
      search_freshness: null,
      results: [newest, middle, oldest].map((id, i) => ({ type: 'TOOL_RESULT', id, rank: i + 1 })),
      tool_names: ['query_kpi_trend', 'query_site_data'],
      source: 'INTERNAL',
    });
  });

  it('R-RC-1 R-RC-2 R-RC-9 of 7 snapshots the 5 newest are read; the token budget drops the oldest of them, and the event keeps only the lines shown', async () => {
    const { conversationId, ids } = await conversationOf(alice, 7);
    const five = await build(alice, conversationId);
    expect(five.lines.map((l) => l.toolName)).toEqual(['tool_6', 'tool_5', 'tool_4', 'tool_3', 'tool_2']);
    expect(five).toMatchObject({ text: blockText(await linesOf(ids, [6, 5, 4, 3, 2])), droppedCount: 0 });

    // A budget that holds exactly the three newest lines: the fourth would pass it.
    const three = blockText(await linesOf(ids, [6, 5, 4]));
    const budget = countTokens(three);
    expect(countTokens(blockText(await linesOf(ids, [6, 5, 4, 3])))).toBeGreaterThan(budget);
    const block = await build(alice, conversationId, blockService({ RECALL_BLOCK_TOKEN_BUDGET: String(budget) }));
    expect(block).toMatchObject({ text: three, tokens: budget, droppedCount: 2, injected: true });
    expect(await medium.recallEventRow(db, block.recallEventId!)).toMatchObject({
      results: [6, 5, 4].map((i, rank) => ({ type: 'TOOL_RESULT', id: ids[i], rank: rank + 1 })),
      tool_names: ['tool_4', 'tool_5', 'tool_6'],
    });
  });

  it("R-RC-6 R-TN-5 a teammate's conversation, another team's and an unknown one are all NOT_FOUND and store no event; each sees only its own rows", async () => {
    const { conversationId } = await conversationOf(alice, 2);
    const bobs = await conversationOf(bob, 1);
    const before = await medium.recallEventCount(db, 'true', []);
    for (const [who, conversation] of [
      [bob, conversationId],
      [mallory, conversationId],
      [alice, crypto.randomUUID()],
    ] as const) {
      await expect(build(who, conversation)).rejects.toMatchObject({
        code: ErrorCode.NOT_FOUND,
        message: `Conversation ${conversation} was not found.`,
      });
    }
    expect(await medium.recallEventCount(db, 'true', [])).toBe(before);
    expect((await build(bob, bobs.conversationId)).lines.map((l) => l.snapshotId)).toEqual(bobs.ids);
    expect((await build(alice, conversationId)).lines.map((l) => l.toolName)).toEqual(['tool_1', 'tool_0']);
  });

  it('R-RC-5 R-RC-9 R-TN-10 a user message of megabytes: gating reads its ends, the event fingerprints its first 2,000 characters', async () => {
    const { conversationId } = await conversationOf(alice, 1);
    const question = `What did you show me last time? ${'q'.repeat(1_968)}`;
    expect(question).toHaveLength(2_000);
    const pasted = ' pasted row'.repeat(400_000);
    const gated = blockService({ RECALL_INTENT_GATING: 'true' });
    const block = await db.as(alice, () => gated.build(alice, conversationId, `${question}${pasted}`));
    expect(block).toMatchObject({ injected: true, droppedCount: 0 });
    expect((await medium.recallEventRow(db, block.recallEventId!))?.query_fingerprint).toBe(
      createHash('sha256').update(question.toLowerCase()).digest('hex'),
    );
    // The same recall asked after the paste is read from the message's end.
    const asked = await db.as(alice, () => gated.build(alice, conversationId, `${pasted} and the previous results?`));
    expect(asked.injected).toBe(true);
    const fresh = await db.as(alice, () => gated.build(alice, conversationId, `${'z'.repeat(2_000)}${' what did you show me'}${pasted}`));
    expect(fresh.injected).toBe(false);
  });

  it('R-RC-1 R-RC-9 an own conversation without snapshots gives an empty block, not injected, and an event with no refs', async () => {
    const conversationId = crypto.randomUUID();
    await db.owner.execute('insert into conversations (team_id, id, user_id, space_id) values (?, ?, ?, ?)', [
      alice.teamId,
      conversationId,
      alice.userId,
      alice.allowedSpaces[0].id,
    ]);
    const block = await build(alice, conversationId);
    expect(block).toMatchObject({ text: '', tokens: 0, lines: [], droppedCount: 0, injected: false, degradations: [] });
    expect(await medium.recallEventRow(db, block.recallEventId!)).toMatchObject({
      space_id: alice.allowedSpaces[0].id,
      results: [],
      tool_names: [],
    });
  });

  it('R-RC-6 R-TN-4 after a bump the block shows nothing from before it, its event is at the new generation; a sealed space is NOT_FOUND', async () => {
    const team = await medium.seedTeam(db);
    const carol = await medium.actorOf(db, team.teamId, team.userIds[0]);
    const { conversationId } = await conversationOf(carol, 2);
    await db.owner.execute('update spaces set generation = 2 where id = ?', [team.spaceId]);
    const bumped = await medium.actorOf(db, team.teamId, team.userIds[0]);
    const empty = await build(bumped, conversationId);
    expect(empty).toMatchObject({ text: '', lines: [], injected: false, suggestedActions: [] });
    expect(await medium.recallEventRow(db, empty.recallEventId!)).toMatchObject({ space_generation: 2, results: [] });

    // The conversation goes on in the new generation.
    const [after] = await medium.recordCalls(db, bumped, [{ toolName: 'tool_9', toolInput: { page: 9 } }], conversationId);
    expect((await build(bumped, conversationId)).lines.map((l) => l.snapshotId)).toEqual([after]);

    await db.owner.execute(`update spaces set status = 'SEALED' where id = ?`, [team.spaceId]);
    const sealed = await medium.actorOf(db, team.teamId, team.userIds[0]);
    await expect(build(sealed, conversationId)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});
