/**
 * Generation scoping of snapshots (R-TN-4, issue 20): after `bumpSpaceGeneration`, every snapshot
 * read answers for a snapshot written before the bump exactly as for one never written (a made-up
 * id, mem id or conversation of the same user in the same space); a write after the bump shows up;
 * a replay of the same tool_use_id, or a compaction of the same history, records anew (a new mem
 * id) instead of mapping to the hidden row.
 *
 * The block reads the conversation, which is not a snapshot: it stays the owner's after a bump
 * (a write after the bump goes on in it), so it reads as a conversation without snapshots.
 */
import { notFoundText } from '../../../src/lookup/keyed-slice';
import { toolResult, type SpaceMember } from '../../support/fixtures';
import { gql, ok } from '../../support/graphql';
import { addMember, BUMP, newMember, newSpace } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const OUTPUT = { items: [{ price: 1, word: 'zebracorn' }] };

const RECORD = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { createdCount duplicateCount snapshots { id memId } }
}`;
const COMPACT = `mutation($input: CompactMessagesInput!) { compactMessages(input: $input) { compactedCount handles { memId toolCallId } } }`;
const TOOL_RESULT = `query($id: ID!) { toolResult(id: $id) { id } }`;
const HISTORY = `query($c: ID) { toolResultHistory(conversationId: $c, first: 100) { edges { node { id } } } }`;
const PRIOR = `query($c: ID) { priorToolResults(conversationId: $c, limit: 100) { id } }`;
const RECALL = `query($m: String!, $f: RecallFormat, $p: String) { recallToolResult(memId: $m, format: $f, jsonPath: $p) }`;
const BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { injected text lines { snapshotId } } }`;
const SEARCH = `query($s: ID!, $q: String!, $c: ID) { recallMemory(spaceId: $s, query: $q, conversationId: $c, limit: 10) { results { ref { id } } } }`;

interface Snap {
  id: string;
  memId: string;
  conversationId: string;
  toolUseId: string;
}
interface Read {
  ids: string;
  name: string;
  read(who: SpaceMember, s: Snap): Promise<unknown>;
}

describe('Snapshot generations: a bump hides what the space remembered (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function newWorld(): Promise<{ admin: TestIdentity; owner: SpaceMember }> {
    const admin = await identity(['admin']);
    const space = await newSpace(t, admin, 'generations');
    const owner = await newMember(t, admin, [space], ['memory:read', 'memory:write']);
    return { admin, owner: { ...owner, spaceId: space } };
  }

  async function record(owner: SpaceMember, conversationId: string, toolUseId?: string): Promise<Snap> {
    const input = toolResult(owner.spaceId, conversationId, { toolOutput: OUTPUT, ...(toolUseId ? { toolUseId } : {}) });
    type Out = { recordToolResults: { createdCount: number; snapshots: { id: string; memId: string }[] } };
    const out = (await ok<Out>(t, RECORD, { input: [input] }, owner.token)).recordToolResults;
    expect(out.createdCount).toBe(1);
    return { id: out.snapshots[0].id, memId: out.snapshots[0].memId, conversationId, toolUseId: input.toolUseId };
  }

  const bump = (admin: TestIdentity, space: string) => ok(t, BUMP, { s: space }, admin.token);

  const compact = (who: SpaceMember, toolUseId: string, conversationId: string) => {
    const messages = [
      { role: 'user', content: 'show me the prices' },
      { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'query_site_data', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'price list '.repeat(1000) }] },
    ];
    const input = { spaceId: who.spaceId, conversationId, messages, sizeThreshold: 10, keepLastN: 0 };
    return ok<{ compactMessages: { compactedCount: number; handles: { memId: string; toolCallId: string }[] } }>(
      t,
      COMPACT,
      { input },
      who.token,
    );
  };

  const reads: Read[] = [
    {
      ids: 'R-TR-7',
      name: 'toolResult(id)',
      read: async (who, s) => (await ok<{ toolResult: { id: string } | null }>(t, TOOL_RESULT, { id: s.id }, who.token)).toolResult,
    },
    ...[false, true].map((byConversation): Read => ({
      ids: 'R-TR-7',
      name: `toolResultHistory(${byConversation ? 'conversationId' : ''})`,
      read: async (who, s) =>
        (
          await ok<{ toolResultHistory: { edges: { node: { id: string } }[] } }>(
            t,
            HISTORY,
            { c: byConversation ? s.conversationId : null },
            who.token,
          )
        ).toolResultHistory.edges.map((e) => e.node.id),
    })),
    ...[false, true].map((byConversation): Read => ({
      ids: 'R-RC-7',
      name: `priorToolResults(${byConversation ? 'conversationId' : ''})`,
      read: async (who, s) =>
        (
          await ok<{ priorToolResults: { id: string }[] }>(t, PRIOR, { c: byConversation ? s.conversationId : null }, who.token)
        ).priorToolResults.map((r) => r.id),
    })),
    ...[false, true].map((byConversation): Read => ({
      ids: 'R-RC-8',
      name: `recallMemory(${byConversation ? 'conversationId' : ''})`,
      read: async (who, s) =>
        (
          await ok<{ recallMemory: { results: { ref: { id: string } }[] } }>(
            t,
            SEARCH,
            { s: who.spaceId, q: 'zebracorn', c: byConversation ? s.conversationId : null },
            who.token,
          )
        ).recallMemory.results.map((r) => r.ref.id),
    })),
    ...(
      [
        ['format: FULL', { f: 'FULL' }],
        ['format: SUMMARY', { f: 'SUMMARY' }],
        ['jsonPath: items.0.price', { p: 'items.0.price' }],
      ] as const
    ).map(([mode, args]): Read => ({
      ids: 'R-LG-2',
      name: `recallToolResult(${mode})`,
      // The mem id is named in the answer: compared with it replaced, the texts must be equal.
      read: async (who, s) =>
        (await ok<{ recallToolResult: string }>(t, RECALL, { m: s.memId, ...args }, who.token)).recallToolResult.replaceAll(
          s.memId,
          '<mem>',
        ),
    })),
  ];

  describe('after bumpSpaceGeneration', () => {
    let world: { admin: TestIdentity; owner: SpaceMember };
    let old: Snap;
    let madeUp: Snap;
    /** A member of a fresh space who never wrote: what a read answers where nothing was ever written. */
    let blank: SpaceMember;
    /** What each read answered before the bump, for the snapshot. */
    const before = new Map<string, unknown>();
    const missing = (op: Read) => op.read(blank, madeUp);
    beforeAll(async () => {
      world = await newWorld();
      blank = (await newWorld()).owner;
      old = await record(world.owner, crypto.randomUUID());
      madeUp = { id: crypto.randomUUID(), memId: 'mem_aaaaaaaaaaaaaaaa', conversationId: crypto.randomUUID(), toolUseId: 'x' };
      for (const op of reads) before.set(op.name, await op.read(world.owner, old));
      await bump(world.admin, world.owner.spaceId);
    });

    it.each(reads)('$ids R-TN-4 control: before the bump $name answered for the snapshot, not as for a missing one', async (op) => {
      const nothing = await missing(op);
      expect(nothing === null || (Array.isArray(nothing) && nothing.length === 0) || nothing === notFoundText('<mem>')).toBe(true);
      expect(before.get(op.name)).not.toEqual(nothing);
    });

    it.each(reads)('$ids R-TN-4 $name reads a snapshot from before the bump exactly as a missing one', async (op) => {
      expect(await op.read(world.owner, old)).toEqual(await missing(op));
      // The same user's made-up id, mem id or conversation in the same space reads alike.
      expect(await op.read(world.owner, madeUp)).toEqual(await missing(op));
    });

    it('R-RC-6 R-TN-4 recallBlock of the conversation shows nothing from before the bump', async () => {
      const res = await ok<{ recallBlock: { injected: boolean; text: string; lines: { snapshotId: string }[] } }>(
        t,
        BLOCK,
        { c: old.conversationId },
        world.owner.token,
      );
      expect(res.recallBlock).toEqual({ injected: false, text: '', lines: [] });
    });

    it('R-TR-1 R-RC-6 R-TN-4 a write after the bump shows up in the same conversation, alone', async () => {
      const fresh = await record(world.owner, old.conversationId);
      const block = await ok<{ recallBlock: { lines: { snapshotId: string }[] } }>(t, BLOCK, { c: old.conversationId }, world.owner.token);
      expect(block.recallBlock.lines.map((l) => l.snapshotId)).toEqual([fresh.id]);
      for (const op of reads) {
        const read = await op.read(world.owner, fresh);
        expect({ op: op.name, read: JSON.stringify(read) }).toEqual({ op: op.name, read: expect.not.stringContaining(old.id) });
        expect({ op: op.name, read }).not.toEqual({ op: op.name, read: await missing(op) });
      }
    });
  });

  it('R-TR-2 R-TN-4 a replay of the same tool_use_id after the bump records a new snapshot that reads back', async () => {
    const { admin, owner } = await newWorld();
    const old = await record(owner, crypto.randomUUID());
    const replay = () =>
      ok<{ recordToolResults: { createdCount: number; duplicateCount: number; snapshots: { id: string; memId: string }[] } }>(
        t,
        RECORD,
        { input: [toolResult(owner.spaceId, old.conversationId, { toolUseId: old.toolUseId, toolOutput: OUTPUT })] },
        owner.token,
      );
    // Control: before the bump, the replay maps to the stored row.
    expect((await replay()).recordToolResults).toMatchObject({ createdCount: 0, duplicateCount: 1, snapshots: [{ memId: old.memId }] });

    await bump(admin, owner.spaceId);
    const out = (await replay()).recordToolResults;
    expect(out).toMatchObject({ createdCount: 1, duplicateCount: 0 });
    const [again] = out.snapshots;
    expect(again.memId).not.toBe(old.memId);
    const full = await ok<{ recallToolResult: string }>(t, RECALL, { m: again.memId, f: 'FULL' }, owner.token);
    expect(JSON.parse(full.recallToolResult)).toEqual(OUTPUT);
    expect((await ok<{ toolResult: { id: string } | null }>(t, TOOL_RESULT, { id: again.id }, owner.token)).toolResult).toEqual({
      id: again.id,
    });
    // And a second replay in the new generation maps to the new row.
    expect((await replay()).recordToolResults).toMatchObject({ createdCount: 0, snapshots: [{ memId: again.memId }] });
  });

  it('R-LG-3 R-TN-4 compacting the same history after the bump records anew', async () => {
    const { admin, owner } = await newWorld();
    const conversationId = crypto.randomUUID();
    const toolUseId = `toolu_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const first = (await compact(owner, toolUseId, conversationId)).compactMessages;
    expect(first.compactedCount).toBe(1);
    // Control: the same history again reuses the stored stub.
    expect((await compact(owner, toolUseId, conversationId)).compactMessages.handles).toEqual(first.handles);

    await bump(admin, owner.spaceId);
    const after = (await compact(owner, toolUseId, conversationId)).compactMessages;
    expect(after.compactedCount).toBe(1);
    expect(after.handles).toEqual([{ memId: expect.stringMatching(/^mem_/), toolCallId: toolUseId }]);
    expect(after.handles[0].memId).not.toBe(first.handles[0].memId);
    const summary = (n: string) => ok<{ recallToolResult: string }>(t, RECALL, { m: n, f: 'SUMMARY' }, owner.token);
    expect((await summary(first.handles[0].memId)).recallToolResult).toBe(notFoundText(first.handles[0].memId));
    expect((await summary(after.handles[0].memId)).recallToolResult).toContain(after.handles[0].memId);
  });

  it('R-TN-4 another space of the same owner keeps its snapshots when one space is bumped', async () => {
    const { admin, owner } = await newWorld();
    const other = await newSpace(t, admin, 'untouched');
    await addMember(t, admin, other, owner.userId);
    const kept = await record({ ...owner, spaceId: other }, crypto.randomUUID());
    const hidden = await record(owner, crypto.randomUUID());
    await bump(admin, owner.spaceId);
    const history = await ok<{ toolResultHistory: { edges: { node: { id: string } }[] } }>(t, HISTORY, { c: null }, owner.token);
    expect(history.toolResultHistory.edges.map((e) => e.node.id)).toEqual([kept.id]);
    const res = await gql<{ toolResult: { id: string } | null }>(t, TOOL_RESULT, { id: hidden.id }, owner.token);
    expect(res.data?.toolResult).toBeNull();
  });
});
