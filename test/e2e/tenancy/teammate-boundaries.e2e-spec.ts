/**
 * Boundaries proven from the inside (R-TR-4, R-TN-5): a teammate — same team, member of the same
 * space, with every memory scope — is where only the user filter protects. By id, the teammate
 * writes into my conversation and my message (recordToolResults, compactMessages) and reads my
 * snapshots and conversation (block, toolResult, recallToolResult, search). Each write is refused
 * (NOT_FOUND naming the id, the whole call, nothing written) and each read answers exactly as for
 * a snapshot or conversation that does not exist; nothing of mine changes. A user of another team
 * making the same call writes rows of its own team under the same ids (ids are the team's own,
 * R-TN-9) and leaves mine alone. Positive controls show the same calls working for me and for
 * the teammate's own ids.
 */
import { notFoundText } from '../../../src/lookup/keyed-slice';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok, type GraphqlResponse } from '../../support/graphql';
import { newMember, newSpace } from '../../support/tenancy';
import { createTestApp, identity, type TestApp } from '../../support/test-app';

const READ_WRITE = ['memory:read', 'memory:write'];
const MARKER = 'zebracorn';
const COMPACT = `mutation($input: CompactMessagesInput!) { compactMessages(input: $input) { compactedCount handles { memId } } }`;
const BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { lines { snapshotId } } }`;
const TOOL_RESULT = `query($id: ID!) { toolResult(id: $id) { id } }`;
const RECALL = `query($m: String!) { recallToolResult(memId: $m, format: FULL) }`;
const SEARCH = `query($s: ID!, $q: String!, $c: ID) { recallMemory(spaceId: $s, query: $q, conversationId: $c, limit: 50) { results { snapshot { id } } } }`;

interface Mine {
  conversationId: string;
  messageId: string;
  id: string;
  memId: string;
}
type Recorded = { recordToolResults: { snapshots: { id: string; memId: string }[] } };

describe('Teammate boundaries: same team, same space (e2e)', () => {
  let t: TestApp;
  let me: SpaceMember;
  let mate: SpaceMember;
  let mine: Mine;

  beforeAll(async () => {
    t = await createTestApp();
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin, 'shared');
    me = { ...(await newMember(t, admin, [spaceId], READ_WRITE)), spaceId };
    mate = { ...(await newMember(t, admin, [spaceId], READ_WRITE)), spaceId };
    const input = toolResult(spaceId, crypto.randomUUID(), { toolOutput: { note: `${MARKER} ${'x'.repeat(50)}` } });
    const [snap] = (await ok<Recorded>(t, RECORD, { input: [input] }, me.token)).recordToolResults.snapshots;
    mine = { conversationId: input.conversationId, messageId: input.messageId, id: snap.id, memId: snap.memId };
  });
  afterAll(async () => {
    await t.close();
  });

  /** Every row of mine, and how many rows each table holds: what a refused write must leave as it was. */
  async function state(): Promise<unknown> {
    const rows = async (sql: string) => (await t.sql.query(sql, [me.teamId, me.userId])).rows;
    return {
      conversations: await rows('select * from conversations where team_id = $1 and user_id = $2 order by id'),
      messages: await rows(
        `select m.* from messages m join conversations c on c.team_id = m.team_id and c.id = m.conversation_id
          where c.team_id = $1 and c.user_id = $2 order by m.id`,
      ),
      snapshots: await rows('select * from message_tool_results where team_id = $1 and user_id = $2 order by id'),
      counts: (
        await t.sql.query(
          `select (select count(*) from conversations where team_id = $1) c, (select count(*) from messages where team_id = $1) m,
                  (select count(*) from message_tool_results where team_id = $1) s`,
          [me.teamId],
        )
      ).rows[0],
    };
  }
  const compactInto = (who: SpaceMember, conversationId: string, assistantId?: string) => {
    const toolUseId = `toolu_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const messages = [
      { role: 'user', content: 'list the prices' },
      {
        role: 'assistant',
        ...(assistantId ? { id: assistantId } : {}),
        content: [{ type: 'tool_use', id: toolUseId, name: 'lookup_rows', input: {} }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'price row '.repeat(400) }] },
    ];
    const input = { spaceId: who.spaceId, conversationId, messages, sizeThreshold: 10, keepLastN: 0 };
    return gql<{ compactMessages: { compactedCount: number } }>(t, COMPACT, { input }, who.token);
  };
  /**
   * A refused write: NOT_FOUND naming the id, no data, nothing of my team changed. The same call by
   * a user of another team is no refusal: it writes under its own team, and nothing of mine changes.
   */
  async function expectRefused(write: (who: SpaceMember) => Promise<GraphqlResponse>, message: string) {
    const before = await state();
    const res = await write(mate);
    const error = expectErrorCode(res, 'NOT_FOUND');
    expect(error.message).toBe(message);
    expect(res.data ?? null).toBeNull();
    expect(await state()).toEqual(before);
    // A new team each time: the ids an earlier test wrote under an outsider's team are its own now.
    const fromOutside = await write(await memberOfNewSpace(t));
    expect(fromOutside.errors).toBeUndefined();
    expect(await state()).toEqual(before);
  }

  describe('writes into my ids', () => {
    it('R-TR-4 R-TN-5 recordToolResults into my conversation is NOT_FOUND for the whole batch, nothing written', async () => {
      const batch = (who: SpaceMember) => [toolResult(who.spaceId, crypto.randomUUID()), toolResult(who.spaceId, mine.conversationId)];
      await expectRefused((who) => gql(t, RECORD, { input: batch(who) }, who.token), `Conversation ${mine.conversationId} was not found.`);
    });

    it('R-TR-4 R-TN-5 recordToolResults attaching to my message in a conversation of its own is NOT_FOUND, nothing written', async () => {
      const item = (who: SpaceMember) => toolResult(who.spaceId, crypto.randomUUID(), { messageId: mine.messageId });
      await expectRefused((who) => gql(t, RECORD, { input: [item(who)] }, who.token), `Message ${mine.messageId} was not found.`);
    });

    it('R-TR-4 R-TN-5 recordToolResults naming both my conversation and my message is NOT_FOUND, nothing written', async () => {
      const item = (who: SpaceMember) => toolResult(who.spaceId, mine.conversationId, { messageId: mine.messageId });
      await expectRefused((who) => gql(t, RECORD, { input: [item(who)] }, who.token), `Conversation ${mine.conversationId} was not found.`);
    });

    it('R-TR-4 R-TN-5 R-LG-3 compactMessages into my conversation is NOT_FOUND, nothing written', async () => {
      await expectRefused((who) => compactInto(who, mine.conversationId), `Conversation ${mine.conversationId} was not found.`);
    });

    it('R-TR-4 R-TN-5 R-LG-3 compactMessages whose assistant message carries my message id is NOT_FOUND, nothing written', async () => {
      await expectRefused((who) => compactInto(who, crypto.randomUUID(), mine.messageId), `Message ${mine.messageId} was not found.`);
    });

    it('R-TR-4 control: I write into my conversation and message, and the teammate into ids of its own, with the same calls', async () => {
      const again = toolResult(me.spaceId, mine.conversationId, { messageId: mine.messageId });
      expect((await gql(t, RECORD, { input: [again] }, me.token)).errors).toBeUndefined();
      expect((await compactInto(me, mine.conversationId, mine.messageId)).errors).toBeUndefined();
      const own = toolResult(mate.spaceId, crypto.randomUUID());
      expect((await gql(t, RECORD, { input: [own] }, mate.token)).errors).toBeUndefined();
      expect((await compactInto(mate, crypto.randomUUID(), crypto.randomUUID())).errors).toBeUndefined();
    });
  });

  describe('reads of my snapshot and conversation', () => {
    const madeUp = () => ({ conversationId: crypto.randomUUID(), id: crypto.randomUUID(), memId: 'mem_aaaaaaaaaaaaaaaa' });

    it('R-RC-6 R-TN-5 recallBlock of my conversation is NOT_FOUND, exactly as a conversation that does not exist', async () => {
      const ghost = madeUp();
      const shape = async (conversationId: string) => {
        const res = await gql(t, BLOCK, { c: conversationId }, mate.token);
        return {
          data: res.data ?? null,
          code: res.errors?.[0].extensions?.code,
          message: res.errors?.[0].message.replace(conversationId, '<id>'),
        };
      };
      expect(await shape(mine.conversationId)).toEqual(await shape(ghost.conversationId));
      expect(await shape(mine.conversationId)).toEqual({ data: null, code: 'NOT_FOUND', message: 'Conversation <id> was not found.' });
      const control = await ok<{ recallBlock: { lines: { snapshotId: string }[] } }>(t, BLOCK, { c: mine.conversationId }, me.token);
      expect(control.recallBlock.lines.map((l) => l.snapshotId)).toContain(mine.id);
    });

    it('R-TR-7 R-TN-5 toolResult(id) of my snapshot is null, as a made-up id is', async () => {
      expect((await ok<{ toolResult: null }>(t, TOOL_RESULT, { id: mine.id }, mate.token)).toolResult).toBeNull();
      expect((await ok<{ toolResult: null }>(t, TOOL_RESULT, { id: madeUp().id }, mate.token)).toolResult).toBeNull();
      expect((await ok<{ toolResult: { id: string } }>(t, TOOL_RESULT, { id: mine.id }, me.token)).toolResult).toEqual({ id: mine.id });
    });

    it('R-LG-2 R-TN-5 recallToolResult by my mem id reads as an unknown mem id', async () => {
      const read = async (who: SpaceMember, memId: string) =>
        (await ok<{ recallToolResult: string }>(t, RECALL, { m: memId }, who.token)).recallToolResult;
      expect(await read(mate, mine.memId)).toBe(notFoundText(mine.memId));
      expect(await read(mate, madeUp().memId)).toBe(notFoundText(madeUp().memId));
      expect(await read(me, mine.memId)).toContain(MARKER);
    });

    it('R-RC-8 R-TN-5 recallMemory in our shared space never finds my snapshot, by the space or by my conversation', async () => {
      type Hits = { recallMemory: { results: { snapshot: { id: string } | null }[] } };
      const ids = async (who: SpaceMember, conversationId: string | null) =>
        (await ok<Hits>(t, SEARCH, { s: who.spaceId, q: MARKER, c: conversationId }, who.token)).recallMemory.results.map(
          (r) => r.snapshot?.id,
        );
      // The teammate's own snapshot with the same word is found: the search does look in this space.
      const input = toolResult(mate.spaceId, crypto.randomUUID(), { toolOutput: { note: MARKER } });
      const [theirs] = (await ok<Recorded>(t, RECORD, { input: [input] }, mate.token)).recordToolResults.snapshots;
      expect(await ids(mate, null)).toEqual([theirs.id]);
      expect(await ids(mate, mine.conversationId)).toEqual([]);
      expect(await ids(mate, madeUp().conversationId)).toEqual([]);
      expect(await ids(me, null)).toContain(mine.id);
    });
  });
});
