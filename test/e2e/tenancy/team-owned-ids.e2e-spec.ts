/**
 * Ids a client chooses are the team's own (R-TN-9): every tenant table is keyed by (team_id, …),
 * so the conversation, message and tool-use ids another team used first are, for this team, ids
 * never seen. Nothing answers differently — no refusal, no probe, no reach — and each team sees
 * only its own rows under the shared ids. A teammate's snapshot id named in a recall event tells
 * nothing of it either.
 */
import { fine, FEEDBACK_SCOPES, newTeam, recallEvent, submitOk, type Team } from '../../support/feedback-fixtures';
import { RECORD, toolResult } from '../../support/fixtures';
import { gql, ok, type GraphqlResponse } from '../../support/graphql';
import { newMember } from '../../support/tenancy';
import { createTestApp, type TestApp, type TestIdentity } from '../../support/test-app';

const HISTORY = `{ toolResultHistory(first: 50) { edges { node { id conversationId messageId toolUseId toolName } } } }`;
const BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { lines { snapshotId toolName } } }`;
const LOOKUP = `query($m: String!) { recallToolResult(memId: $m, format: FULL) }`;
const TOOL_RESULT = `query($id: ID!) { toolResult(id: $id) { id } }`;
const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { compactedCount handles { memId toolCallId } }
}`;
const RECALL_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { toolNames results { type id rank } } }`;

type Snapshot = { id: string; memId: string; conversationId: string; messageId: string; toolUseId: string; toolName: string };
type Recorded = { recordToolResults: { createdCount: number; duplicateCount: number; snapshots: Snapshot[] } };

/** A response with every id replaced by its role, so two answers about different ids can be compared. */
function shapeOf(res: GraphqlResponse, ids: Record<string, string>): string {
  let text = JSON.stringify({ data: res.data ?? null, errors: res.errors?.map((e) => ({ message: e.message, code: e.extensions?.code })) });
  for (const [role, id] of Object.entries(ids)) text = text.replaceAll(id, `<${role}>`);
  // Server-made values (new snapshot ids, mem ids, times) differ on every write; their presence is the shape.
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/mem_[0-9a-z]{16}/g, '<mem>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>');
}

describe('Team-owned ids (e2e)', () => {
  let t: TestApp;
  let a: Team;
  let b: Team;

  beforeAll(async () => {
    t = await createTestApp();
    a = await newTeam(t);
    b = await newTeam(t);
  });
  afterAll(() => t.close());

  const record = (who: TestIdentity, input: unknown[]) => gql<Recorded>(t, RECORD, { input }, who.token);
  const historyOf = async (who: TestIdentity) =>
    (await ok<{ toolResultHistory: { edges: { node: Snapshot }[] } }>(t, HISTORY, {}, who.token)).toolResultHistory.edges.map(
      (e) => e.node,
    );

  it('R-TN-9 R-TR-4 team B records under conversation, message and tool-use ids first; team A records under the same ids, and each team sees only its own', async () => {
    const shared = {
      conversationId: crypto.randomUUID(),
      messageId: crypto.randomUUID(),
      toolUseId: `toolu_${crypto.randomUUID().slice(0, 8)}`,
    };
    const fresh = {
      conversationId: crypto.randomUUID(),
      messageId: crypto.randomUUID(),
      toolUseId: `toolu_${crypto.randomUUID().slice(0, 8)}`,
    };
    const ids = { conversation: shared.conversationId, message: shared.messageId, toolUse: shared.toolUseId };
    const freshIds = { conversation: fresh.conversationId, message: fresh.messageId, toolUse: fresh.toolUseId };

    // Before anyone writes, and after team B has: team A's reads of the shared ids answer as for ids never seen.
    const readsOf = async (who: TestIdentity, conversationId: string) => gql(t, BLOCK, { c: conversationId }, who.token);
    const unseenBlock = shapeOf(await readsOf(a.member, fresh.conversationId), freshIds);
    const byB = await record(b.member, [toolResult(b.spaces[0], shared.conversationId, { ...shared, toolName: 'team_b_tool' })]);
    expect(byB.errors).toBeUndefined();
    const snapshotOfB = byB.data!.recordToolResults.snapshots[0];
    expect(shapeOf(await readsOf(a.member, shared.conversationId), ids)).toBe(unseenBlock);
    for (const [query, vars, unseen] of [
      [LOOKUP, { m: snapshotOfB.memId }, { m: 'mem_aaaaaaaaaaaaaaaa' }],
      [TOOL_RESULT, { id: snapshotOfB.id }, { id: crypto.randomUUID() }],
    ] as const) {
      const used = await gql(t, query, vars, a.member.token);
      const never = await gql(t, query, unseen, a.member.token);
      expect(shapeOf(used, { id: Object.values(vars)[0] })).toBe(shapeOf(never, { id: Object.values(unseen)[0] }));
    }

    // Team A writes under the ids B used, and under ids nobody used: the same answer, a new row each.
    const onShared = await record(a.member, [toolResult(a.spaces[0], shared.conversationId, { ...shared, toolName: 'team_a_tool' })]);
    const onFresh = await record(a.member, [toolResult(a.spaces[0], fresh.conversationId, { ...fresh, toolName: 'team_a_tool' })]);
    expect(onShared.errors).toBeUndefined();
    expect(onShared.data!.recordToolResults).toMatchObject({ createdCount: 1, duplicateCount: 0 });
    expect(shapeOf(onShared, { ...ids, space: a.spaces[0] })).toBe(shapeOf(onFresh, { ...freshIds, space: a.spaces[0] }));

    // Each team sees its own snapshot under the shared ids, and nothing of the other's.
    const snapshotOfA = onShared.data!.recordToolResults.snapshots[0];
    expect(snapshotOfA.id).not.toBe(snapshotOfB.id);
    const historyA = await historyOf(a.member);
    const historyB = await historyOf(b.member);
    expect(historyA.filter((s) => s.conversationId === shared.conversationId)).toEqual([
      {
        id: snapshotOfA.id,
        conversationId: shared.conversationId,
        messageId: shared.messageId,
        toolUseId: shared.toolUseId,
        toolName: 'team_a_tool',
      },
    ]);
    expect(historyB).toEqual([
      {
        id: snapshotOfB.id,
        conversationId: shared.conversationId,
        messageId: shared.messageId,
        toolUseId: shared.toolUseId,
        toolName: 'team_b_tool',
      },
    ]);
    const blockA = await ok<{ recallBlock: { lines: { snapshotId: string }[] } }>(t, BLOCK, { c: shared.conversationId }, a.member.token);
    expect(blockA.recallBlock.lines.map((l) => l.snapshotId)).toEqual([snapshotOfA.id]);

    // A replay is a duplicate in its own team only; B's row is untouched.
    const replay = await record(b.member, [toolResult(b.spaces[0], shared.conversationId, { ...shared, toolName: 'team_b_tool' })]);
    expect(replay.data!.recordToolResults).toMatchObject({ createdCount: 0, duplicateCount: 1 });
    expect(replay.data!.recordToolResults.snapshots[0].id).toBe(snapshotOfB.id);
    const rows = await t.sql.query('select team_id, tool_name from message_tool_results where conversation_id = $1 order by tool_name', [
      shared.conversationId,
    ]);
    expect(rows.rows).toEqual([
      { team_id: a.admin.teamId, tool_name: 'team_a_tool' },
      { team_id: b.admin.teamId, tool_name: 'team_b_tool' },
    ]);
  });

  it('R-TN-9 R-LG-3 compaction of the same history under the same conversation id in two teams: the same answer in each, two sets of rows', async () => {
    const conversationId = crypto.randomUUID();
    const toolUseId = 'toolu_shared_history_1';
    const messages = [
      { role: 'user', content: 'list the prices' },
      { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'lookup_rows', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'price row '.repeat(400) }] },
    ];
    const compact = (team: Team) =>
      gql<{ compactMessages: { compactedCount: number; handles: { memId: string; toolCallId: string }[] } }>(
        t,
        COMPACT,
        { input: { spaceId: team.spaces[0], conversationId, messages, sizeThreshold: 10, keepLastN: 0 } },
        team.member.token,
      );
    const first = await compact(b);
    const second = await compact(a);
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    expect(shapeOf(second, { space: a.spaces[0] })).toBe(shapeOf(first, { space: b.spaces[0] }));
    const teams = await t.sql.query('select distinct team_id from messages where conversation_id = $1 order by team_id', [conversationId]);
    expect(teams.rows.map((r) => r.team_id)).toEqual([a.admin.teamId, b.admin.teamId].sort());
  });

  it("R-RC-11 R-TN-5 a teammate's snapshot id in recordRecallEvent reveals nothing of it: the answer is that of an id never seen", async () => {
    const mate = await newMember(t, a.admin, a.spaces, FEEDBACK_SCOPES);
    const recorded = await ok<Recorded>(
      t,
      RECORD,
      { input: [toolResult(a.spaces[0], crypto.randomUUID(), { toolName: 'mates_private_tool' })] },
      mate.token,
    );
    const teammates = recorded.recordToolResults.snapshots[0].id;
    const made = crypto.randomUUID();
    const event = (id: string) => ({
      spaceId: a.spaces[0],
      contractVersion: 'x.v1',
      results: [{ type: 'TOOL_RESULT', id, rank: 1 }],
    });
    const withTeammates = await gql(t, RECALL_EVENT, { input: event(teammates) }, a.member.token);
    const withMadeUp = await gql(t, RECALL_EVENT, { input: event(made) }, a.member.token);
    expect(withTeammates.errors).toBeUndefined();
    expect(shapeOf(withTeammates, { id: teammates })).toBe(shapeOf(withMadeUp, { id: made }));
    expect((withTeammates.data as { recordRecallEvent: { toolNames: string[] } }).recordRecallEvent.toolNames).toEqual([]);
    // The stored event knows no more: an admin's inspection shows no tool name either, and feedback copies none.
    const eventId = await recallEvent(t, a.member, { spaceId: a.spaces[0], results: [{ type: 'TOOL_RESULT', id: teammates, rank: 1 }] });
    const stored = await t.sql.query('select tool_names from recall_events where id = $1', [eventId]);
    expect(stored.rows).toEqual([{ tool_names: [] }]);
    await submitOk(t, a.member, [fine(eventId)]);
    const copied = await t.sql.query('select tool_names from feedback_events where recall_event_id = $1', [eventId]);
    expect(copied.rows).toEqual([{ tool_names: [] }]);
  });
});
