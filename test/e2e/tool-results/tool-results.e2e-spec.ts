import request from 'supertest';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember, type ToolResultInputShape } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, identity, type TestApp } from '../../support/test-app';

interface Snapshot {
  id: string;
  memId: string;
  toolUseId: string;
  toolOutput: unknown;
  sizeChars: number;
  createdAt: string;
}
interface RecordResult {
  recordToolResults: { createdCount: number; duplicateCount: number; snapshots: Snapshot[] };
}

const HISTORY = `query($c: ID, $first: Int, $after: String, $tool: String) {
  toolResultHistory(conversationId: $c, first: $first, after: $after, toolName: $tool) {
    edges { cursor node { id toolUseId toolName } }
    pageInfo { hasNextPage endCursor }
  }
}`;
interface HistoryResult {
  toolResultHistory: {
    edges: { cursor: string; node: { id: string; toolUseId: string } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

describe('ToolResults (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let bob: SpaceMember;

  beforeAll(async () => {
    // One team sends 20 batches at once below: the cap's race is under test, not the per-team in-flight limit (R-TN-10).
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
    alice = await memberOfNewSpace(t);
    bob = await memberOfNewSpace(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const record = (who: SpaceMember, input: ToolResultInputShape[]) => gql<RecordResult>(t, RECORD, { input }, who.token);
  const countRows = async (table: string) => Number((await t.sql.query(`select count(*) from ${table}`)).rows[0].count);

  it('R-TR-1 R-TR-7 records three results and lists them newest first with a working cursor', async () => {
    const conversationId = crypto.randomUUID();
    const messageId = crypto.randomUUID();
    const inputs = ['a', 'b', 'c'].map((k) => toolResult(alice.spaceId, conversationId, { messageId, toolUseId: `toolu_hist_${k}` }));
    const res = await record(alice, inputs);
    expect(res.errors).toBeUndefined();
    expect(res.data!.recordToolResults).toMatchObject({ createdCount: 3, duplicateCount: 0 });
    expect(res.data!.recordToolResults.snapshots.map((s) => s.toolUseId)).toEqual(['toolu_hist_a', 'toolu_hist_b', 'toolu_hist_c']);
    for (const s of res.data!.recordToolResults.snapshots) expect(s.memId).toMatch(/^mem_[a-z2-7]{16}$/);

    const page1 = await gql<HistoryResult>(t, HISTORY, { c: conversationId, first: 2 }, alice.token);
    expect(page1.data!.toolResultHistory.edges.map((e) => e.node.toolUseId)).toEqual(['toolu_hist_c', 'toolu_hist_b']);
    expect(page1.data!.toolResultHistory.pageInfo.hasNextPage).toBe(true);
    const page2 = await gql<HistoryResult>(
      t,
      HISTORY,
      { c: conversationId, first: 2, after: page1.data!.toolResultHistory.pageInfo.endCursor },
      alice.token,
    );
    expect(page2.data!.toolResultHistory.edges.map((e) => e.node.toolUseId)).toEqual(['toolu_hist_a']);
    expect(page2.data!.toolResultHistory.pageInfo).toEqual({
      hasNextPage: false,
      endCursor: page2.data!.toolResultHistory.edges[0].cursor,
    });
  });

  it('R-TR-2 a repeated toolUseId returns the original snapshot, counts as a duplicate and leaves the row untouched', async () => {
    const conversationId = crypto.randomUUID();
    const first = toolResult(alice.spaceId, conversationId, { toolUseId: 'toolu_dup_1', toolOutput: { v: 1 } });
    const original = (await record(alice, [first])).data!.recordToolResults.snapshots[0];
    const before = (await t.sql.query('select * from message_tool_results where id = $1', [original.id])).rows[0];

    const again = await record(alice, [{ ...first, toolOutput: { v: 2, changed: true }, toolName: 'other_tool' }]);
    expect(again.data!.recordToolResults).toMatchObject({ createdCount: 0, duplicateCount: 1 });
    expect(again.data!.recordToolResults.snapshots[0]).toEqual(original);
    const after = (await t.sql.query('select * from message_tool_results where id = $1', [original.id])).rows[0];
    expect(after).toEqual(before);
  });

  it('R-TR-2 the same toolUseId twice in one batch is stored once', async () => {
    const item = toolResult(alice.spaceId, crypto.randomUUID(), { toolUseId: 'toolu_twice' });
    const res = await record(alice, [item, item]);
    expect(res.data!.recordToolResults).toMatchObject({ createdCount: 1, duplicateCount: 1 });
    const [a, b] = res.data!.recordToolResults.snapshots;
    expect(a.id).toBe(b.id);
  });

  it('R-TR-3 20 concurrent batches of 20 into one conversation with cap 200 leave exactly the newest 200', async () => {
    const conversationId = crypto.randomUUID();
    const batches = Array.from({ length: 20 }, (_, b) =>
      Array.from({ length: 20 }, (_, i) => toolResult(alice.spaceId, conversationId, { toolUseId: `toolu_cap_${b}_${i}` })),
    );
    const results = await Promise.all(batches.map((batch) => record(alice, batch)));
    for (const r of results) expect(r.errors).toBeUndefined();

    const rows = await t.sql.query('select tool_use_id, created_at from message_tool_results where conversation_id = $1', [conversationId]);
    expect(rows.rowCount).toBe(200);
    // Every kept row is newer than every deleted one: the batches' own return values carry the times.
    const all = results.flatMap((r) => r.data!.recordToolResults.snapshots);
    const kept = new Set(rows.rows.map((r: { tool_use_id: string }) => r.tool_use_id));
    const oldestKept = Math.min(...all.filter((s) => kept.has(s.toolUseId)).map((s) => Date.parse(s.createdAt)));
    const newestDropped = Math.max(...all.filter((s) => !kept.has(s.toolUseId)).map((s) => Date.parse(s.createdAt)));
    expect(newestDropped).toBeLessThanOrEqual(oldestKept);
  });

  it("R-TR-4 R-TN-9 recording under another team's conversation and message ids writes rows of one's own team, theirs untouched; a space not allowed writes nothing", async () => {
    const aliceConversation = crypto.randomUUID();
    const aliceMessage = crypto.randomUUID();
    await record(alice, [toolResult(alice.spaceId, aliceConversation, { messageId: aliceMessage })]);
    const alicesRows = () =>
      Promise.all(
        ['conversations', 'messages', 'message_tool_results'].map(
          async (table) => (await t.sql.query(`select * from ${table} where team_id = $1 order by id`, [alice.teamId])).rows,
        ),
      );
    const before = await alicesRows();

    // The ids are each team's own: bob's team gets a conversation and a message of its own under them.
    const intoConversation = await record(bob, [toolResult(bob.spaceId, crypto.randomUUID()), toolResult(bob.spaceId, aliceConversation)]);
    expect(intoConversation.errors).toBeUndefined();
    const intoMessage = await record(bob, [toolResult(bob.spaceId, crypto.randomUUID(), { messageId: aliceMessage })]);
    expect(intoMessage.errors).toBeUndefined();
    const bobs = await t.sql.query('select count(*)::int as n from message_tool_results where team_id = $1', [bob.teamId]);
    expect(bobs.rows[0].n).toBeGreaterThanOrEqual(3);
    expect(await alicesRows()).toEqual(before);

    const total = await Promise.all(['conversations', 'messages', 'message_tool_results'].map(countRows));
    const intoSpace = await record(bob, [toolResult(alice.spaceId, crypto.randomUUID())]);
    expect(expectErrorCode(intoSpace, 'NOT_FOUND').message).toBe(`Space ${alice.spaceId} was not found.`);
    expect(await Promise.all(['conversations', 'messages', 'message_tool_results'].map(countRows))).toEqual(total);
  });

  it("R-TR-7 R-TN-5 another user's snapshot is null by id and never in their history", async () => {
    const conversationId = crypto.randomUUID();
    const mine = (await record(alice, [toolResult(alice.spaceId, conversationId)])).data!.recordToolResults.snapshots[0];
    const byBob = await ok<{ toolResult: unknown }>(t, `query($id: ID!) { toolResult(id: $id) { id } }`, { id: mine.id }, bob.token);
    expect(byBob.toolResult).toBeNull();
    const byAlice = await gql<{ toolResult: { id: string } }>(
      t,
      `query($id: ID!) { toolResult(id: $id) { id } }`,
      { id: mine.id },
      alice.token,
    );
    expect(byAlice.data!.toolResult.id).toBe(mine.id);

    const bobsHistory = await gql<HistoryResult>(t, HISTORY, { first: 100 }, bob.token);
    expect(bobsHistory.data!.toolResultHistory.edges.map((e) => e.node.id)).not.toContain(mine.id);
    const bobsView = await gql<HistoryResult>(t, HISTORY, { c: conversationId, first: 100 }, bob.token);
    expect(bobsView.data!.toolResultHistory.edges).toEqual([]);
  });

  it('R-TR-5 R-TR-6 a 1 MiB JSON output round-trips equal; a string output comes back as the same string', async () => {
    const items = Array.from({ length: 12000 }, (_, i) => ({
      sku: `SKU-${i}`,
      title: `Item number ${i} ✓`,
      price: i / 7,
      tags: ['a', 'b'],
    }));
    const big = { items, total: items.length, nested: { deep: { unicode: 'zażółć', nothing: null } } };
    expect(JSON.stringify(big).length).toBeGreaterThan(1024 * 1024);
    const text = 'plain text output\nwith "quotes" and emoji 🚀';
    const conversationId = crypto.randomUUID();
    const res = await record(alice, [
      toolResult(alice.spaceId, conversationId, { toolUseId: 'toolu_big', toolOutput: big }),
      toolResult(alice.spaceId, conversationId, { toolUseId: 'toolu_text', toolOutput: text }),
    ]);
    expect(res.errors).toBeUndefined();
    const [bigSnap, textSnap] = res.data!.recordToolResults.snapshots;
    expect(bigSnap.toolOutput).toEqual(big);
    expect(bigSnap.sizeChars).toBe(JSON.stringify(big).length);
    expect(textSnap.toolOutput).toBe(text);
    expect(textSnap.sizeChars).toBe(text.length);
    const fetched = await gql<{ toolResult: { toolOutput: unknown } }>(
      t,
      `query($id: ID!) { toolResult(id: $id) { toolOutput } }`,
      { id: textSnap.id },
      alice.token,
    );
    expect(fetched.data!.toolResult.toolOutput).toBe(text);
    const stored = await t.sql.query(`select jsonb_typeof(tool_output) as kind from message_tool_results where id = $1`, [textSnap.id]);
    expect(stored.rows[0].kind).toBe('string');
  });

  it('R-TR-5 a 3 MiB output is PAYLOAD_TOO_LARGE with the limit in the message, and nothing is written', async () => {
    const before = await countRows('message_tool_results');
    const huge = { blob: 'x'.repeat(3 * 1024 * 1024) };
    const res = await record(alice, [
      toolResult(alice.spaceId, crypto.randomUUID()),
      toolResult(alice.spaceId, crypto.randomUUID(), { toolOutput: huge }),
    ]);
    expect(expectErrorCode(res, 'PAYLOAD_TOO_LARGE', { field: 'input.1.toolOutput' }).message).toContain('2 MiB');
    expect(await countRows('message_tool_results')).toBe(before);
  });

  it('R-TR-1 R-OP-5 more than 100 items, a bad id or a future createdAt is BAD_USER_INPUT with the field path', async () => {
    const conversationId = crypto.randomUUID();
    const tooMany = Array.from({ length: 101 }, () => toolResult(alice.spaceId, conversationId));
    expectErrorCode(await record(alice, tooMany), 'BAD_USER_INPUT', { field: 'input' });
    const badId = await record(alice, [toolResult(alice.spaceId, 'nope')]);
    expectErrorCode(badId, 'BAD_USER_INPUT', { field: 'input.0.conversationId' });
    const future = await record(alice, [
      toolResult(alice.spaceId, conversationId, { createdAt: new Date(Date.now() + 3_600_000).toISOString() }),
    ]);
    expectErrorCode(future, 'BAD_USER_INPUT', { field: 'input.0.createdAt' });
    const ancient = await record(alice, [toolResult(alice.spaceId, conversationId, { createdAt: '2020-01-01T00:00:00Z' })]);
    expect(ancient.errors?.[0].message).toContain('180-day retention window');
    const badPage = await gql(t, HISTORY, { first: 101 }, alice.token);
    expectErrorCode(badPage, 'BAD_USER_INPUT', { field: 'first' });
    const badCursor = await gql(t, HISTORY, { first: 5, after: 'garbage' }, alice.token);
    expectErrorCode(badCursor, 'BAD_USER_INPUT', { field: 'after' });
  });

  it('R-TR-1 an import keeps its createdAt, and history filters by tool name and time', async () => {
    const conversationId = crypto.randomUUID();
    const at = new Date(Date.now() - 3 * 86_400_000).toISOString();
    await record(alice, [
      toolResult(alice.spaceId, conversationId, { toolName: 'query_kpi_trend', createdAt: at }),
      toolResult(alice.spaceId, conversationId, { toolName: 'query_site_data' }),
    ]);
    const kpi = await gql<HistoryResult>(t, HISTORY, { c: conversationId, tool: 'query_kpi_trend', first: 10 }, alice.token);
    expect(kpi.data!.toolResultHistory.edges).toHaveLength(1);
    const old = await gql<{ toolResultHistory: { edges: { node: { createdAt: string } }[] } }>(
      t,
      `query($c: ID, $u: DateTime) { toolResultHistory(conversationId: $c, until: $u) { edges { node { createdAt } } } }`,
      { c: conversationId, u: new Date(Date.now() - 86_400_000).toISOString() },
      alice.token,
    );
    expect(old.data!.toolResultHistory.edges.map((e) => e.node.createdAt)).toEqual([at]);
  });

  it('R-TR-2 scopes: recording needs memory:write, reading needs memory:read', async () => {
    const reader = await identity(['memory:read'], { teamId: alice.teamId });
    const res = await gql(t, RECORD, { input: [toolResult(alice.spaceId, crypto.randomUUID())] }, reader.token);
    expectErrorCode(res, 'FORBIDDEN');
    const writer = await identity(['memory:write']);
    expectErrorCode(await gql(t, HISTORY, { first: 1 }, writer.token), 'FORBIDDEN');
  });

  it('R-TR-8 past 100 distinct tool names the metric reports the rest as other', async () => {
    const conversationId = crypto.randomUUID();
    const names = Array.from({ length: 101 }, (_, i) => `metric_tool_${i}`);
    for (let i = 0; i < names.length; i += 50) {
      const res = await record(
        alice,
        names.slice(i, i + 50).map((toolName) => toolResult(alice.spaceId, conversationId, { toolName })),
      );
      expect(res.errors).toBeUndefined();
    }
    const metrics = (await request(t.app.getHttpServer()).get('/metrics')).text;
    const labels = [...metrics.matchAll(/^tool_results_persisted_total\{tool_name="([^"]+)"\}/gm)].map((m) => m[1]);
    expect(labels.length).toBeLessThanOrEqual(101);
    expect(labels).toContain('other');
    expect(labels.filter((l) => l.startsWith('metric_tool_')).length).toBeLessThan(101);
  });

  it("R-TR-8 one team's many tool names use up only its own share (20), not another team's", async () => {
    const [flooder, other] = [await memberOfNewSpace(t), await memberOfNewSpace(t)];
    const names = Array.from({ length: 25 }, (_, i) => `flood_tool_${i}`);
    expect(
      (
        await record(
          flooder,
          names.map((toolName) => toolResult(flooder.spaceId, crypto.randomUUID(), { toolName })),
        )
      ).errors,
    ).toBeUndefined();
    expect((await record(other, [toolResult(other.spaceId, crypto.randomUUID(), { toolName: 'quiet_team_tool' })])).errors).toBeUndefined();
    const metrics = (await request(t.app.getHttpServer()).get('/metrics')).text;
    const labels = [...metrics.matchAll(/^tool_results_persisted_total\{tool_name="([^"]+)"\}/gm)].map((m) => m[1]);
    expect(labels.filter((l) => l.startsWith('flood_tool_'))).toHaveLength(t.config.metrics.toolLabelsPerTeam);
    expect(labels).toContain('quiet_team_tool');
  });

  it('R-TR-3 R-RT-4 deleting a user row cascades to conversations, messages and snapshots', async () => {
    const victim = await memberOfNewSpace(t);
    await record(victim, [toolResult(victim.spaceId, crypto.randomUUID()), toolResult(victim.spaceId, crypto.randomUUID())]);
    const owned = `select (select count(*) from conversations where user_id = $1) + (select count(*) from messages where user_id = $1)
                        + (select count(*) from message_tool_results where user_id = $1) as n`;
    expect(Number((await t.sql.query(owned, [victim.userId])).rows[0].n)).toBe(6);
    await t.sql.query('delete from users where id = $1', [victim.userId]);
    expect(Number((await t.sql.query(owned, [victim.userId])).rows[0].n)).toBe(0);
  });
});
