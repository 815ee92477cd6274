import { signToken } from '../../../src/tenancy/token-signer';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { RECORD, toolResult } from '../../support/fixtures';
import { createTestApp, identity, TEST_JWT_SECRET, type TestApp } from '../../support/test-app';

const ME = `{ me { userId teamId scopes spaces { id name generation status memberIds } } }`;
const CREATE_SPACE = `mutation($name: String!) { createSpace(name: $name) { id name generation status memberIds } }`;
const ADD_MEMBER = `mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id memberIds } }`;
const REMOVE_MEMBER = `mutation($s: ID!, $u: ID!) { removeSpaceMember(spaceId: $s, userId: $u) { id memberIds } }`;
const SEAL = `mutation($s: ID!) { sealSpace(spaceId: $s) { id status } }`;
const RETIRE = `mutation($s: ID!) { retireSpace(spaceId: $s) { id status } }`;
const BUMP = `mutation($s: ID!) { bumpSpaceGeneration(spaceId: $s) { id generation } }`;

interface SpaceShape {
  id: string;
  name: string;
  generation: number;
  status: string;
  memberIds: string[];
}

describe('Tenancy (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function createSpace(token: string, name = 'research'): Promise<SpaceShape> {
    return (await ok<{ createSpace: SpaceShape }>(t, CREATE_SPACE, { name }, token)).createSpace;
  }

  it('R-TN-3 provisions user and team on first use and returns an empty allowed-space set', async () => {
    const user = await identity(['memory:read']);
    const { me } = await ok<{ me: { userId: string; teamId: string; scopes: string[]; spaces: unknown[] } }>(t, ME, {}, user.token);
    expect(me).toEqual({ userId: user.userId, teamId: user.teamId, scopes: ['memory:read'], spaces: [] });
    const rows = await t.sql.query('select u.id, u.team_id from users u join teams t on t.id = u.team_id where u.id = $1', [user.userId]);
    expect(rows.rows).toEqual([{ id: user.userId, team_id: user.teamId }]);
  });

  it('R-TN-4 R-TN-6 an admin creates a space, adds a user, and the user sees it in me until sealed or retired', async () => {
    const admin = await identity(['admin']);
    const member = await identity(['memory:read'], { teamId: admin.teamId });
    const space = await createSpace(admin.token);
    expect(space).toMatchObject({ name: 'research', generation: 1, status: 'ACTIVE', memberIds: [admin.userId] });

    const added = await ok<{ addSpaceMember: SpaceShape }>(t, ADD_MEMBER, { s: space.id, u: member.userId }, admin.token);
    expect(added.addSpaceMember.memberIds).toEqual([admin.userId, member.userId]);

    const me = await gql<{ me: { spaces: SpaceShape[] } }>(t, ME, {}, member.token);
    expect(me.data!.me.spaces.map((s) => [s.id, s.generation, s.status])).toEqual([[space.id, 1, 'ACTIVE']]);

    expect((await gql(t, SEAL, { s: space.id }, admin.token)).data).toEqual({ sealSpace: { id: space.id, status: 'SEALED' } });
    const sealed = await gql<{ me: { spaces: SpaceShape[] } }>(t, ME, {}, member.token);
    expect(sealed.data!.me.spaces).toEqual([]);

    const other = await createSpace(admin.token, 'other');
    await gql(t, ADD_MEMBER, { s: other.id, u: member.userId }, admin.token);
    expect((await ok<{ me: { spaces: SpaceShape[] } }>(t, ME, {}, member.token)).me.spaces.map((s) => s.id)).toEqual([other.id]);
    expect((await gql(t, RETIRE, { s: other.id }, admin.token)).data).toEqual({ retireSpace: { id: other.id, status: 'RETIRED' } });
    expect((await ok<{ me: { spaces: SpaceShape[] } }>(t, ME, {}, member.token)).me.spaces).toEqual([]);
  });

  it('R-TN-6 bumpSpaceGeneration increments the generation and me reports the new one', async () => {
    const admin = await identity(['admin']);
    const space = await createSpace(admin.token);
    const first = await gql<{ bumpSpaceGeneration: { generation: number } }>(t, BUMP, { s: space.id }, admin.token);
    const second = await gql<{ bumpSpaceGeneration: { generation: number } }>(t, BUMP, { s: space.id }, admin.token);
    expect([first.data!.bumpSpaceGeneration.generation, second.data!.bumpSpaceGeneration.generation]).toEqual([2, 3]);
    const me = await gql<{ me: { spaces: SpaceShape[] } }>(t, ME, {}, admin.token);
    expect(me.data!.me.spaces).toEqual([expect.objectContaining({ id: space.id, generation: 3 })]);
  });

  it("R-TN-6 removeSpaceMember takes the space out of the member's allowed set", async () => {
    const admin = await identity(['admin']);
    const member = await identity(['memory:read'], { teamId: admin.teamId });
    const space = await createSpace(admin.token);
    await gql(t, ADD_MEMBER, { s: space.id, u: member.userId }, admin.token);
    const removed = await gql<{ removeSpaceMember: SpaceShape }>(t, REMOVE_MEMBER, { s: space.id, u: member.userId }, admin.token);
    expect(removed.data!.removeSpaceMember.memberIds).toEqual([admin.userId]);
    expect((await ok<{ me: { spaces: SpaceShape[] } }>(t, ME, {}, member.token)).me.spaces).toEqual([]);
  });

  it('R-TN-6 a RETIRED space cannot be sealed, bumped or given members (CONFLICT), and retiring twice is harmless', async () => {
    const admin = await identity(['admin']);
    const space = await createSpace(admin.token);
    await gql(t, RETIRE, { s: space.id }, admin.token);
    await ok(t, RETIRE, { s: space.id }, admin.token);
    for (const [query, vars] of [
      [SEAL, { s: space.id }],
      [BUMP, { s: space.id }],
      [ADD_MEMBER, { s: space.id, u: admin.userId }],
    ] as const) {
      const res = await gql(t, query, vars, admin.token);
      expectErrorCode(res, 'CONFLICT');
    }
  });

  it('R-TN-5 an admin of team A naming a space of team B, or removing a user it does not have, gets NOT_FOUND, as for a missing one', async () => {
    const adminA = await identity(['admin']);
    const adminB = await identity(['admin']);
    const spaceB = await createSpace(adminB.token);
    const spaceA = await createSpace(adminA.token);
    const missing = crypto.randomUUID();

    for (const spaceId of [spaceB.id, missing]) {
      for (const query of [SEAL, RETIRE, BUMP]) {
        const res = await gql(t, query, { s: spaceId }, adminA.token);
        expect(expectErrorCode(res, 'NOT_FOUND').message).toBe(`Space ${spaceId} was not found.`);
      }
    }
    const removeForeign = await gql(t, REMOVE_MEMBER, { s: spaceA.id, u: adminB.userId }, adminA.token);
    expect(expectErrorCode(removeForeign, 'NOT_FOUND').message).toBe(`User ${adminB.userId} was not found.`);

    const state = await t.sql.query('select status, generation from spaces where id = $1', [spaceB.id]);
    expect(state.rows).toEqual([{ status: 'ACTIVE', generation: 1 }]);
    const spacesOfA = await gql<{ spaces: SpaceShape[] }>(t, `{ spaces { id } }`, {}, adminA.token);
    expect(spacesOfA.data!.spaces.map((s) => s.id)).toEqual([spaceA.id]);
  });

  it("R-TN-6 addSpaceMember provisions an unknown user into the admin's team", async () => {
    const admin = await identity(['admin']);
    const space = await createSpace(admin.token);
    const newcomer = crypto.randomUUID();
    const res = await gql<{ addSpaceMember: SpaceShape }>(t, ADD_MEMBER, { s: space.id, u: newcomer }, admin.token);
    expect(res.data!.addSpaceMember.memberIds).toContain(newcomer);
    const row = await t.sql.query('select team_id from users where id = $1', [newcomer]);
    expect(row.rows).toEqual([{ team_id: admin.teamId }]);
  });

  it("R-TN-3 R-TN-9 team B's admin adding a person's sub creates team B's user only: the person then signs in to team A and works normally", async () => {
    const adminA = await identity(['admin']);
    const adminB = await identity(['admin']);
    const spaceA = await createSpace(adminA.token);
    const spaceB = await createSpace(adminB.token);
    const person = crypto.randomUUID();
    // Team B's admin gets there first, with the sub the person uses in team A.
    const addedByB = await ok<{ addSpaceMember: SpaceShape }>(t, ADD_MEMBER, { s: spaceB.id, u: person }, adminB.token);
    expect(addedByB.addSpaceMember.memberIds).toContain(person);
    await ok(t, ADD_MEMBER, { s: spaceA.id, u: person }, adminA.token);

    const inA = await identity(['memory:read', 'memory:write'], { userId: person, teamId: adminA.teamId });
    const me = await ok<{ me: { userId: string; teamId: string; spaces: { id: string }[] } }>(
      t,
      `{ me { userId teamId spaces { id } } }`,
      {},
      inA.token,
    );
    expect(me.me).toEqual({ userId: person, teamId: adminA.teamId, spaces: [{ id: spaceA.id }] });
    const input = [toolResult(spaceA.id, crypto.randomUUID())];
    const recorded = await ok<{ recordToolResults: { snapshots: { id: string }[] } }>(t, RECORD, { input }, inA.token);
    expect(recorded.recordToolResults.snapshots).toHaveLength(1);

    // Two users with nothing in common: one per team, each a member of its own team's space only.
    const users = await t.sql.query('select team_id from users where id = $1 order by team_id', [person]);
    expect(users.rows.map((r) => r.team_id)).toEqual([adminA.teamId, adminB.teamId].sort());
    const inB = await identity(['memory:read'], { userId: person, teamId: adminB.teamId });
    const meInB = await ok<{ me: { teamId: string; spaces: { id: string }[] } }>(t, `{ me { teamId spaces { id } } }`, {}, inB.token);
    expect(meInB.me).toEqual({ teamId: adminB.teamId, spaces: [{ id: spaceB.id }] });
    const history = await ok<{ toolResultHistory: { edges: unknown[] } }>(
      t,
      `{ toolResultHistory(first: 10) { edges { cursor } } }`,
      {},
      inB.token,
    );
    expect(history.toolResultHistory.edges).toEqual([]);
  });

  it('R-TN-1 a missing, malformed, expired or badly signed token is UNAUTHENTICATED', async () => {
    const userId = crypto.randomUUID();
    const teamId = crypto.randomUUID();
    const expired = await signToken({ userId, teamId, scopes: ['admin'], secret: TEST_JWT_SECRET, expiresInSeconds: -60 });
    const wrongKey = await signToken({ userId, teamId, scopes: ['admin'], secret: 'another-secret-that-is-also-long-enough-000' });
    const notUuid = await signToken({ userId: 'alice', teamId, scopes: ['admin'], secret: TEST_JWT_SECRET });
    for (const token of [undefined, 'not-a-jwt', expired, wrongKey, notUuid]) {
      const res = await gql(t, ME, {}, token);
      expectErrorCode(res, 'UNAUTHENTICATED');
      expect(res.data ?? null).toBeNull();
    }
    const rows = await t.sql.query('select 1 from users where id = $1', [userId]);
    expect(rows.rowCount).toBe(0);
  });

  it('R-TN-2 a token without the needed scope is FORBIDDEN and nothing is created', async () => {
    const user = await identity(['memory:read', 'memory:write', 'feedback:write']);
    const res = await gql(t, CREATE_SPACE, { name: 'nope' }, user.token);
    expect(expectErrorCode(res, 'FORBIDDEN').message).toBe('This operation needs the scope admin.');
    const spaces = await t.sql.query('select 1 from spaces where name = $1', ['nope']);
    expect(spaces.rowCount).toBe(0);
  });

  it('R-TN-3 the same sub under another team is another user of that team, with nothing of the first', async () => {
    const user = await identity(['memory:read']);
    await ok(t, ME, {}, user.token);
    const namesake = await identity(['memory:read', 'admin'], { userId: user.userId });
    const res = await ok<{ me: { userId: string; teamId: string; scopes: string[]; spaces: unknown[] } }>(t, ME, {}, namesake.token);
    expect(res.me).toMatchObject({ userId: user.userId, teamId: namesake.teamId, spaces: [] });
    const teams = await t.sql.query('select team_id from users where id = $1 order by team_id', [user.userId]);
    expect(teams.rows.map((r) => r.team_id)).toEqual([user.teamId, namesake.teamId].sort());
  });

  it('R-TN-7 setFeatureFlag changes what featureFlags returns for the team only', async () => {
    const adminA = await identity(['admin']);
    const adminB = await identity(['admin']);
    const FLAGS = `{ featureFlags { key enabled } }`;
    expect((await gql(t, FLAGS, {}, adminA.token)).data).toEqual({
      featureFlags: [
        { key: 'recall_feedback_enabled', enabled: false },
        { key: 'recall_query_text_enabled', enabled: false },
      ],
    });
    const set = await gql(
      t,
      `mutation { setFeatureFlag(key: "recall_feedback_enabled", enabled: true) { key enabled } }`,
      {},
      adminA.token,
    );
    expect(set.data).toEqual({ setFeatureFlag: { key: 'recall_feedback_enabled', enabled: true } });
    expect((await gql(t, FLAGS, {}, adminA.token)).data).toEqual({
      featureFlags: [
        { key: 'recall_feedback_enabled', enabled: true },
        { key: 'recall_query_text_enabled', enabled: false },
      ],
    });
    expect((await gql(t, FLAGS, {}, adminB.token)).data).toEqual({
      featureFlags: [
        { key: 'recall_feedback_enabled', enabled: false },
        { key: 'recall_query_text_enabled', enabled: false },
      ],
    });
  });

  it('R-TN-7 an unknown flag key is BAD_USER_INPUT naming the known keys', async () => {
    const admin = await identity(['admin']);
    const res = await gql(t, `mutation { setFeatureFlag(key: "nope", enabled: true) { key } }`, {}, admin.token);
    expect(expectErrorCode(res, 'BAD_USER_INPUT', { field: 'key' }).message).toContain('recall_feedback_enabled');
  });

  it('R-OP-4 a malformed id argument is BAD_USER_INPUT with the field name', async () => {
    const admin = await identity(['admin']);
    const res = await gql(t, SEAL, { s: 'not-a-uuid' }, admin.token);
    expectErrorCode(res, 'BAD_USER_INPUT', { field: 'spaceId' });
    const blank = await gql(t, CREATE_SPACE, { name: '   ' }, admin.token);
    expectErrorCode(blank, 'BAD_USER_INPUT', { field: 'name' });
  });
});
