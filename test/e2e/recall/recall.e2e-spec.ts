import request from 'supertest';
import { countTokens } from '../../../src/common/text/tokenizer';
import { PREVIOUSLY_FETCHED_FOOTER, PREVIOUSLY_FETCHED_HEADER } from '../../../src/recall/block/previously-fetched-block';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';
import { HANDLE_COLUMNS, handleColumns } from '../../support/tool-results-service';

const BLOCK = `query($c: ID!, $m: String) {
  recallBlock(conversationId: $c, userMessage: $m) {
    text tokens droppedCount injected recallEventId suggestedActions { action } degradations
    lines { snapshotId memId toolName createdAt text tokens }
  }
}`;
interface Block {
  text: string;
  tokens: number;
  droppedCount: number;
  injected: boolean;
  recallEventId: string | null;
  lines: { snapshotId: string; memId: string; toolName: string; createdAt: string; text: string; tokens: number }[];
}

/** Inserts a snapshot at an exact time, as an import older than the write path allows would. */
async function insertAt(
  t: TestApp,
  who: SpaceMember,
  conversationId: string,
  createdAt: string,
  toolName: string,
  input: unknown,
  output: unknown,
) {
  const messageId = crypto.randomUUID();
  const toolUseId = `toolu_${crypto.randomUUID()}`;
  const memId = `mem_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await t.sql.query(`insert into conversations (team_id, id, user_id, space_id) values ($4, $1, $2, $3) on conflict do nothing`, [
    conversationId,
    who.userId,
    who.spaceId,
    who.teamId,
  ]);
  await t.sql.query(`insert into messages (team_id, id, conversation_id, user_id) values ($4, $1, $2, $3)`, [
    messageId,
    conversationId,
    who.userId,
    who.teamId,
  ]);
  await t.sql.query(
    `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                       ${HANDLE_COLUMNS}, team_id, space_generation)
     select gen_random_uuid(), $1::uuid, $2::uuid, $3::uuid, $4, $5::jsonb, $6::jsonb, $7::timestamptz, $8, $9, 10, $10, $11, $12, $13, $14::int, s.team_id, s.generation
       from conversations c join spaces s on s.team_id = c.team_id and s.id = c.space_id where c.id = $3::uuid and c.user_id = $1::uuid`,
    [
      who.userId,
      messageId,
      conversationId,
      toolName,
      JSON.stringify(input),
      JSON.stringify(output),
      createdAt,
      toolUseId,
      memId,
      ...handleColumns({ memId, toolName, toolUseId, sizeChars: 10, toolInput: input, toolOutput: output }),
    ],
  );
}

describe('Recall block and prior results (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let bob: SpaceMember;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
    bob = await memberOfNewSpace(t);
  });
  afterAll(() => t.close());

  it("R-RC-1 renders the ADR's three snapshots to exactly the ADR's block, newest first, dates in UTC", async () => {
    const c = crypto.randomUUID();
    await insertAt(
      t,
      alice,
      c,
      '2026-05-08T23:30:00Z',
      'query_site_data',
      { target: 'memberships' },
      {
        plans: [
          { name: 'Basic', active_members: 4 },
          { name: 'Starter Pack', active_members: 23 },
          { name: 'Pro', active_members: 11 },
          { name: 'Team', active_members: 2 },
          { name: 'Trial', active_members: 9 },
        ],
      },
    );
    await insertAt(
      t,
      alice,
      c,
      '2026-05-12T09:00:00Z',
      'query_site_data',
      { target: 'recent_members' },
      {
        members: Array.from({ length: 8 }, (_, i) => ({ name: `m${i}`, registered_at: `2026-05-${String(3 + i).padStart(2, '0')}` })),
      },
    );
    await insertAt(
      t,
      alice,
      c,
      '2026-05-12T08:00:00Z',
      'query_kpi_trend',
      { metric: 'active_members', granularity: 'week' },
      {
        metric: 'active_members',
        granularity: 'week',
        points: [100, 101, 103, 104, 106, 109, 112].map((value, i) => ({ period: `w${i}`, value })),
      },
    );
    const { recallBlock } = await ok<{ recallBlock: Block }>(t, BLOCK, { c }, alice.token);
    expect(recallBlock.text).toBe(
      [
        'Previously fetched (this conversation, snapshots — not live data):',
        '- 2026-05-12 query_site_data(target="recent_members"): 8 members, last registered 2026-05-10',
        '- 2026-05-12 query_kpi_trend(metric="active_members", granularity="week"): 7-week trend, +12%',
        '- 2026-05-08 query_site_data(target="memberships"): 5 plans, Starter Pack 23 active',
        '',
        'IMPORTANT: when referencing a row above, always prefix with "as of <date>".',
        'If the user is asking about CURRENT state, call the tool fresh — do not',
        'present these snapshots as live data.',
      ].join('\n'),
    );
    expect(recallBlock).toMatchObject({
      injected: true,
      droppedCount: 0,
      recallEventId: expect.stringMatching(/^rec_[0-9A-HJKMNP-TV-Z]{26}$/),
      suggestedActions: [],
      degradations: [],
    });
    expect(recallBlock.tokens).toBe(countTokens(recallBlock.text));
  });

  it('R-RC-1 R-RC-2 uses the 5 most recent snapshots and keeps the block within 300 tokens, dropping the oldest', async () => {
    const c = crypto.randomUUID();
    const long = (i: number) => ({
      target: `segment_${i}_${'very_long_argument_value_'.repeat(3)}`,
      filter: 'x'.repeat(60),
      sort: 'desc',
      page: i,
    });
    const inputs = Array.from({ length: 7 }, (_, i) =>
      toolResult(alice.spaceId, c, {
        toolName: `tool_with_a_rather_long_name_${i}`,
        toolInput: long(i),
        toolOutput: `${'lorem ipsum dolor sit amet '.repeat(20)} #${i}`,
      }),
    );
    for (const input of inputs) await ok(t, RECORD, { input: [input] }, alice.token);

    const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, alice.token)).recallBlock;
    expect(block.tokens).toBeLessThanOrEqual(300);
    expect(countTokens(block.text)).toBe(block.tokens);
    expect(block.droppedCount).toBeGreaterThan(0);
    const kept = block.lines.map((l) => l.toolName);
    // K = 5 newest are considered (6 and 2 are the newest and the oldest of them); dropping takes the oldest.
    expect(kept.length + block.droppedCount).toBe(5);
    expect(kept).toEqual(
      [
        'tool_with_a_rather_long_name_6',
        'tool_with_a_rather_long_name_5',
        'tool_with_a_rather_long_name_4',
        'tool_with_a_rather_long_name_3',
        'tool_with_a_rather_long_name_2',
      ].slice(0, kept.length),
    );
    expect(block.text.startsWith(PREVIOUSLY_FETCHED_HEADER)).toBe(true);
    expect(block.text.endsWith(PREVIOUSLY_FETCHED_FOOTER)).toBe(true);
    for (const line of block.lines) expect(line.tokens).toBe(countTokens(line.text));
    // R-RC-9: the event holds the rows the block shows, not the dropped ones it read.
    const event = await t.sql.query<{ results: { id: string; rank: number }[] }>('select results from recall_events where id = $1', [
      block.recallEventId,
    ]);
    expect(event.rows[0].results).toEqual(
      block.lines.map((line, index) => ({ type: 'TOOL_RESULT', id: line.snapshotId, rank: index + 1 })),
    );
  });

  it('R-RC-1 an own conversation without snapshots gives an empty block, not injected', async () => {
    const c = crypto.randomUUID();
    await t.sql.query(`insert into conversations (team_id, id, user_id, space_id) values ($4, $1, $2, $3)`, [
      c,
      alice.userId,
      alice.spaceId,
      alice.teamId,
    ]);
    const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, alice.token)).recallBlock;
    expect(block).toMatchObject({ text: '', tokens: 0, lines: [], droppedCount: 0, injected: false });
  });

  it("R-RC-6 R-TN-5 another user's conversation and an unknown one are both NOT_FOUND", async () => {
    const c = crypto.randomUUID();
    await gql(t, RECORD, { input: [toolResult(alice.spaceId, c)] }, alice.token);
    for (const conversation of [c, crypto.randomUUID()]) {
      const res = await gql(t, BLOCK, { c: conversation }, bob.token);
      expect(expectErrorCode(res, 'NOT_FOUND').message).toBe(`Conversation ${conversation} was not found.`);
    }
  });

  it("R-RC-4 the injection-tokens gauge holds the last block's token count", async () => {
    const c = crypto.randomUUID();
    await gql(t, RECORD, { input: [toolResult(alice.spaceId, c)] }, alice.token);
    const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, alice.token)).recallBlock;
    const metrics = (await request(t.app.getHttpServer()).get('/metrics')).text;
    expect(metrics).toMatch(new RegExp(`^tool_results_injection_tokens ${block.tokens}$`, 'm'));
    expect(metrics).toMatch(/^tool_results_injection_tokens_histogram_count \d+$/m);
  });

  it("R-RC-7 priorToolResults returns the actor's full snapshots newest first, filtered and limited", async () => {
    const c = crypto.randomUUID();
    const inputs = [
      toolResult(alice.spaceId, c, { toolName: 'query_kpi_trend', toolOutput: { n: 1 } }),
      toolResult(alice.spaceId, c, { toolName: 'query_site_data', toolOutput: { n: 2 } }),
      toolResult(alice.spaceId, c, { toolName: 'query_kpi_trend', toolOutput: { n: 3 } }),
    ];
    await gql(t, RECORD, { input: inputs }, alice.token);
    const PRIOR = `query($c: ID, $tool: String, $limit: Int, $days: Int) { priorToolResults(conversationId: $c, toolName: $tool, limit: $limit, sinceDays: $days) { toolName toolOutput } }`;
    const latest = await gql<{ priorToolResults: { toolOutput: unknown }[] }>(t, PRIOR, { c, tool: 'query_kpi_trend' }, alice.token);
    expect(latest.data!.priorToolResults).toEqual([{ toolName: 'query_kpi_trend', toolOutput: { n: 3 } }]);
    const all = await gql<{ priorToolResults: { toolOutput: unknown }[] }>(t, PRIOR, { c, limit: 10, days: 7 }, alice.token);
    expect(all.data!.priorToolResults.map((s) => s.toolOutput)).toEqual([{ n: 3 }, { n: 2 }, { n: 1 }]);
    const asBob = await gql<{ priorToolResults: unknown[] }>(t, PRIOR, { c, limit: 10 }, bob.token);
    expect(asBob.data!.priorToolResults).toEqual([]);
    const tooMany = await gql(t, PRIOR, { limit: 101 }, alice.token);
    expectErrorCode(tooMany, 'BAD_USER_INPUT', { field: 'limit' });
  });
});

describe('Recall-intent gating on (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;

  beforeAll(async () => {
    t = await createTestApp({ RECALL_INTENT_GATING: 'true' });
    alice = await memberOfNewSpace(t);
  });
  afterAll(() => t.close());

  it('R-RC-5 injects for a recall-like message and not for a question about now', async () => {
    const c = crypto.randomUUID();
    await gql(t, RECORD, { input: [toolResult(alice.spaceId, c)] }, alice.token);
    const recall = await gql<{ recallBlock: Block }>(t, BLOCK, { c, m: 'what plans did you show me last time?' }, alice.token);
    expect(recall.data!.recallBlock.injected).toBe(true);
    expect(recall.data!.recallBlock.lines).toHaveLength(1);
    const now = await gql<{ recallBlock: Block }>(t, BLOCK, { c, m: 'how many members now?' }, alice.token);
    expect(now.data!.recallBlock).toMatchObject({ injected: false, text: '', tokens: 0, lines: [] });
  });
});
