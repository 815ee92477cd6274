/**
 * recallBlock and a JSONPath's single value read their actor in their own statement
 * (`@ActorInStatement()`, docs/tenancy.md): every invariant the guard gives holds on that path too,
 * and the answers are the guard path's.
 */
import { memberOfNewSpace, RECORD, toolResult } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { BUMP, newMember, newSpace, REMOVE_MEMBER } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { text injected lines { snapshotId } recallEventId } }`;
const ME = `{ me { userId spaces { id generation } } }`;
const PATH = `query($m: String!, $p: String!) { recallToolResult(memId: $m, jsonPath: $p) }`;
const SUMMARY = `query($m: String!) { recallToolResult(memId: $m) }`;
const DELETE_USER = `mutation($u: ID!) { deleteUserData(userId: $u) { userId } }`;

const withoutIds = (message: string) => message.replaceAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
const withoutMemIds = (answer: string) => answer.replaceAll(/mem_[a-z0-9]{16}/g, 'mem_<id>');

interface Block {
  text: string;
  injected: boolean;
  lines: { snapshotId: string }[];
  recallEventId: string | null;
}

describe('An operation that reads its actor in its own statement: recallBlock (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const count = async (sql: string, params: unknown[]) => Number((await t.sql.query<{ n: string }>(sql, params)).rows[0].n);
  const eventsOf = (who: TestIdentity) =>
    count('select count(*) as n from recall_events where team_id = $1 and profile_id = $2', [who.teamId, who.userId]);
  const block = (who: TestIdentity, conversationId: string) => gql<{ recallBlock: Block }>(t, BLOCK, { c: conversationId }, who.token);

  async function recorded(spaceId: string, who: TestIdentity, conversationId = crypto.randomUUID()): Promise<string> {
    await recordedMemId(spaceId, who, conversationId);
    return conversationId;
  }
  async function recordedMemId(spaceId: string, who: TestIdentity, conversationId = crypto.randomUUID()): Promise<string> {
    const res = await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(
      t,
      RECORD,
      { input: [toolResult(spaceId, conversationId)] },
      who.token,
    );
    return res.recordToolResults.snapshots[0].memId;
  }
  const pathOf = async (who: TestIdentity, memId: string, path = 'members.0.name') =>
    (await ok<{ recallToolResult: string }>(t, PATH, { m: memId, p: path }, who.token)).recallToolResult;

  it("R-TN-5 R-TN-3 a new user's first request provisions user and team, and is answered as through the guard", async () => {
    const stranger = await identity(['memory:read']);
    const first = await block(stranger, crypto.randomUUID());
    expectErrorCode(first, 'NOT_FOUND');
    expect(await count('select count(*) as n from users where team_id = $1 and id = $2', [stranger.teamId, stranger.userId])).toBe(1);
    expect(await count('select count(*) as n from teams where id = $1', [stranger.teamId])).toBe(1);
    // The same question once the user exists: the same answer, and no event for a conversation it cannot read.
    const again = await block(stranger, crypto.randomUUID());
    expectErrorCode(again, 'NOT_FOUND');
    expect(withoutIds(again.errors![0].message)).toBe(withoutIds(first.errors![0].message));
    expect(await eventsOf(stranger)).toBe(0);
  });

  it("R-TN-5 R-TN-4 the block reads the user's spaces as they are now: a removed member and a bumped generation see what the guard path sees", async () => {
    const admin = await identity(['admin', 'memory:read', 'memory:write']);
    const spaceId = await newSpace(t, admin);
    const member = await newMember(t, admin, [spaceId], ['memory:read', 'memory:write']);
    const conversationId = await recorded(spaceId, member);

    const before = await ok<{ recallBlock: Block }>(t, BLOCK, { c: conversationId }, member.token);
    expect(before.recallBlock.lines).toHaveLength(1);
    expect(before.recallBlock.recallEventId).toEqual(expect.any(String));

    await ok(t, BUMP, { s: spaceId }, admin.token);
    const bumped = await ok<{ recallBlock: Block }>(t, BLOCK, { c: conversationId }, member.token);
    expect(bumped.recallBlock).toMatchObject({ injected: false, lines: [] });
    // The event is stored at the generation the statement read, as the guard path stores it.
    expect(
      await count('select count(*) as n from recall_events where team_id = $1 and id = $2 and space_generation = 2', [
        member.teamId,
        bumped.recallBlock.recallEventId,
      ]),
    ).toBe(1);

    await ok(t, REMOVE_MEMBER, { s: spaceId, u: member.userId }, admin.token);
    expectErrorCode(await block(member, conversationId), 'NOT_FOUND');
  });

  it("R-TN-5 R-TN-8 another user's or another team's conversation answers as a missing one, and stores no event", async () => {
    const owner = await memberOfNewSpace(t);
    const conversationId = await recorded(owner.spaceId, owner);
    const teammate = await identity(['memory:read'], { teamId: owner.teamId });
    const outsider = await memberOfNewSpace(t);
    const missing = await block(outsider, crypto.randomUUID());
    for (const who of [teammate, outsider]) {
      const res = await block(who, conversationId);
      expectErrorCode(res, 'NOT_FOUND');
      expect(withoutIds(res.errors![0].message)).toBe(withoutIds(missing.errors![0].message));
      expect(await eventsOf(who)).toBe(0);
    }
  });

  it('R-TN-5 R-RT-4 a token issued before its user was deleted is refused with the guard’s answer and does not bring the user back', async () => {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin);
    const member = await newMember(t, admin, [spaceId], ['memory:read', 'memory:write']);
    const conversationId = await recorded(spaceId, member);
    await ok(t, DELETE_USER, { u: member.userId }, admin.token);

    const refused = await block(member, conversationId);
    const guardAnswer = await gql(t, ME, {}, member.token);
    expectErrorCode(refused, 'UNAUTHENTICATED');
    expect(refused.errors![0].message).toBe(guardAnswer.errors![0].message);
    expect(await count('select count(*) as n from users where team_id = $1 and id = $2', [member.teamId, member.userId])).toBe(0);
  });

  it('R-TN-5 R-TN-4 with another operation in the same document, both answer for the same actor', async () => {
    const member = await memberOfNewSpace(t);
    const conversationId = await recorded(member.spaceId, member);
    const both = await ok<{ recallBlock: Block; me: { userId: string; spaces: { id: string }[] } }>(
      t,
      `query($c: ID!) { recallBlock(conversationId: $c) { lines { snapshotId } } me { userId spaces { id } } }`,
      { c: conversationId },
      member.token,
    );
    expect(both.recallBlock.lines).toHaveLength(1);
    expect(both.me).toEqual({ userId: member.userId, spaces: [{ id: member.spaceId }] });
  });

  describe('recallToolResult(jsonPath), a single value', () => {
    it("R-TN-5 R-LG-2 R-TN-8 answers the user's value; another user's, another team's and a missing mem id alike as not found", async () => {
      const owner = await memberOfNewSpace(t);
      const memId = await recordedMemId(owner.spaceId, owner);
      expect(await pathOf(owner, memId)).toContain('Ada');
      expect(await pathOf(owner, memId, '$.members[0].name')).toContain('Ada');
      const teammate = await identity(['memory:read'], { teamId: owner.teamId });
      const outsider = await memberOfNewSpace(t);
      const missing = await pathOf(outsider, 'mem_aaaaaaaaaaaaaaaa');
      for (const who of [teammate, outsider]) expect(withoutMemIds(await pathOf(who, memId))).toBe(withoutMemIds(missing));
    });

    it("R-TN-5 R-TN-3 a new user's first request is a path: provisioned, and answered not found", async () => {
      const stranger = await identity(['memory:read']);
      expect(await pathOf(stranger, 'mem_aaaaaaaaaaaaaaaa')).toMatch(/not found/);
      expect(await count('select count(*) as n from users where team_id = $1 and id = $2', [stranger.teamId, stranger.userId])).toBe(1);
    });

    it('R-TN-5 R-TN-4 after a generation bump the value reads as not found, as the stub does through the guard', async () => {
      const admin = await identity(['admin']);
      const spaceId = await newSpace(t, admin);
      const member = await newMember(t, admin, [spaceId], ['memory:read', 'memory:write']);
      const memId = await recordedMemId(spaceId, member);
      expect(await pathOf(member, memId)).toContain('Ada');
      await ok(t, BUMP, { s: spaceId }, admin.token);
      const bumped = await pathOf(member, memId);
      // The stub (keyed recall, through the guard) agrees.
      expect(bumped).toBe((await ok<{ recallToolResult: string }>(t, SUMMARY, { m: memId }, member.token)).recallToolResult);
      expect(bumped).toMatch(/not found/);
    });

    it('R-TN-5 R-RT-4 a token issued before its user was deleted is refused with the guard’s answer', async () => {
      const admin = await identity(['admin']);
      const spaceId = await newSpace(t, admin);
      const member = await newMember(t, admin, [spaceId], ['memory:read', 'memory:write']);
      const memId = await recordedMemId(spaceId, member);
      await ok(t, DELETE_USER, { u: member.userId }, admin.token);
      const refused = await gql(t, PATH, { m: memId, p: 'members.0.name' }, member.token);
      expectErrorCode(refused, 'UNAUTHENTICATED');
      expect(refused.errors![0].message).toBe((await gql(t, ME, {}, member.token)).errors![0].message);
      expect(await count('select count(*) as n from users where team_id = $1 and id = $2', [member.teamId, member.userId])).toBe(0);
    });

    it('R-LG-2 a text output that is not JSON answers the path as absent, as before', async () => {
      const owner = await memberOfNewSpace(t);
      const res = await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(
        t,
        RECORD,
        { input: [toolResult(owner.spaceId, crypto.randomUUID(), { toolOutput: '{"members": [unquoted]}' })] },
        owner.token,
      );
      const answer = await pathOf(owner, res.recordToolResults.snapshots[0].memId);
      expect(answer).toMatch(/^\[tool_memory /);
      expect(answer).not.toMatch(/not found: mem_/);
    });
  });
});
