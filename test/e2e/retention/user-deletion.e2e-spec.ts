/**
 * Deletion through the API (docs/requirements.md §7): deleteUserData removes a user and everything of theirs (R-RT-4).
 */
import { expectErrorCode, gql, ok } from '../../support/graphql';
import {
  countsOf,
  createRetentionApp,
  feedback,
  newTeam,
  recallEvent,
  record,
  scalar,
  sweepOk,
  teammateFeedback,
  type TableCount,
} from './support/retention-fixtures';
import { identity, type TestApp, type TestIdentity } from '../../support/test-app';

const DELETE_USER = `mutation($u: ID!) { deleteUserData(userId: $u) { userId deleted { table count } } }`;
const RECALL = `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q) { recallEventId results { ref { type id rank } } } }`;

const USER_TABLES = ['conversations', 'messages', 'message_tool_results', 'recall_events', 'feedback_events', 'space_members', 'users'];

interface DeletionReport {
  userId: string;
  deleted: TableCount[];
}

describe('Retention and deletion (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRetentionApp();
  });
  afterAll(() => t.close());

  describe('deleteUserData', () => {
    /** Rows of a user, by table, as deleteUserData counts them (feedback: authored, or on the user's recalls). */
    async function userRows(userId: string): Promise<Record<string, number>> {
      const q = (sql: string) => scalar(t, sql, [userId]);
      return {
        conversations: await q(`select count(*) from conversations where user_id = $1`),
        messages: await q(`select count(*) from messages where user_id = $1`),
        message_tool_results: await q(`select count(*) from message_tool_results where user_id = $1`),
        recall_events: await q(`select count(*) from recall_events where profile_id = $1`),
        feedback_events: await q(`select count(*) from feedback_events where actor_id = $1 or profile_id = $1`),
        space_members: await q(`select count(*) from space_members where user_id = $1`),
        users: await q(`select count(*) from users where id = $1`),
      };
    }
    /** Rows that are a user's alone: feedback the user authored on the user's own recalls. */
    async function ownRows(userId: string): Promise<Record<string, number>> {
      return {
        ...(await userRows(userId)),
        feedback_events: await scalar(t, `select count(*) from feedback_events where actor_id = $1 and profile_id = $1`, [userId]),
      };
    }
    const deleteUser = (admin: TestIdentity, userId: string) =>
      gql<{ deleteUserData: DeletionReport }>(t, DELETE_USER, { u: userId }, admin.token);

    it('R-RT-4 removes the user and everything of theirs, reports exact counts per table, leaves the teammate untouched, and is idempotent', async () => {
      const { admin, alice, bob } = await newTeam(t);
      // Alice: two conversations (4 snapshots), an internal and an external recall, feedback by her and on her recall by Bob.
      const c1 = crypto.randomUUID();
      await record(t, alice, c1, 3);
      await record(t, alice, crypto.randomUUID(), 1);
      const internal = (
        await ok<{ recallMemory: { recallEventId: string } }>(t, RECALL, { s: alice.spaceId, q: 'recent members' }, alice.token)
      ).recallMemory.recallEventId;
      const aliceRecall = await recallEvent(t, alice);
      // Bob: a conversation, two recalls, feedback on his own recall, and a recall Alice judged.
      await record(t, bob, crypto.randomUUID(), 2);
      const bobRecall = await recallEvent(t, bob);
      const bobJudgedByAlice = await recallEvent(t, bob);
      await feedback(t, alice, aliceRecall, 'Alice on her own recall.');
      await feedback(t, alice, internal);
      await teammateFeedback(t, alice, bob, aliceRecall, 'Bob on Alice’s recall.');
      await teammateFeedback(t, bob, alice, bobJudgedByAlice, 'Alice on Bob’s recall.');
      const bobOwnFeedback = await feedback(t, bob, bobRecall, 'Bob on his own recall.');

      const alicesBefore = await userRows(alice.userId);
      expect(alicesBefore).toEqual({
        conversations: 2,
        messages: 4,
        message_tool_results: 4,
        recall_events: 2,
        feedback_events: 4,
        space_members: 1,
        users: 1,
      });
      const bobsBefore = await ownRows(bob.userId);
      expect(bobsBefore).toMatchObject({
        conversations: 1,
        messages: 2,
        message_tool_results: 2,
        recall_events: 2,
        feedback_events: 1,
        space_members: 1,
        users: 1,
      });
      const teamBefore = await scalar(t, `select count(*) from users where team_id = $1`, [alice.teamId]);

      const res = await deleteUser(admin, alice.userId);
      expect(res.errors).toBeUndefined();
      expect(res.data!.deleteUserData.userId).toBe(alice.userId);
      expect(res.data!.deleteUserData.deleted.map((d) => d.table)).toEqual(USER_TABLES);
      expect(countsOf(res.data!.deleteUserData.deleted)).toEqual(alicesBefore);

      // Nothing of Alice's is left in any table; Bob's own rows are all there.
      expect(await userRows(alice.userId)).toEqual(Object.fromEntries(USER_TABLES.map((table) => [table, 0])));
      expect(await scalar(t, `select count(*) from feedback_events where recall_event_id = any($1)`, [[aliceRecall, internal]])).toBe(0);
      expect(await ownRows(bob.userId)).toEqual(bobsBefore);
      expect(await scalar(t, `select count(*) from feedback_events where id = $1`, [bobOwnFeedback])).toBe(1);
      expect(await scalar(t, `select count(*) from recall_events where id = any($1)`, [[bobRecall, bobJudgedByAlice]])).toBe(2);
      expect(await scalar(t, `select count(*) from users where team_id = $1`, [alice.teamId])).toBe(teamBefore - 1);
      expect(await scalar(t, `select count(*) from spaces where id = $1`, [alice.spaceId])).toBe(1);

      // Deleting nothing twice is fine.
      const again = await deleteUser(admin, alice.userId);
      expect(again.errors).toBeUndefined();
      expect(again.data!.deleteUserData).toEqual({ userId: alice.userId, deleted: USER_TABLES.map((table) => ({ table, count: 0 })) });
      expect(await ownRows(bob.userId)).toEqual(bobsBefore);
    });

    it('R-RT-4 R-TN-6 a user of another team answers exactly as an id never seen (zero counts, no error) and keeps every row', async () => {
      const { admin } = await newTeam(t);
      const other = await newTeam(t);
      const stranger = other.alice;
      await record(t, stranger, crypto.randomUUID(), 2);
      const strangersRecall = await recallEvent(t, stranger);
      await feedback(t, stranger, strangersRecall, 'Theirs.');
      await teammateFeedback(t, stranger, other.bob, strangersRecall, 'Bob on theirs.');
      const strangerBefore = await userRows(stranger.userId);
      expect(strangerBefore).toEqual({
        conversations: 1,
        messages: 2,
        message_tool_results: 2,
        recall_events: 1,
        feedback_events: 2,
        space_members: 1,
        users: 1,
      });
      const neverSeen = crypto.randomUUID();

      const foreign = await deleteUser(admin, stranger.userId);
      const unknown = await deleteUser(admin, neverSeen);
      // The whole response alike but for the id it echoes: no error, the same tables, the same zeros.
      const withoutId = (res: typeof foreign) => ({ ...res, data: { deleteUserData: { ...res.data!.deleteUserData, userId: null } } });
      expect(foreign.errors).toBeUndefined();
      expect(foreign.data!.deleteUserData.userId).toBe(stranger.userId);
      expect(unknown.data!.deleteUserData.userId).toBe(neverSeen);
      expect(withoutId(foreign)).toEqual(withoutId(unknown));
      expect(foreign.data!.deleteUserData.deleted).toEqual(USER_TABLES.map((table) => ({ table, count: 0 })));
      // Every row of the other team's user is still there.
      expect(await userRows(stranger.userId)).toEqual(strangerBefore);
      expect(await scalar(t, `select count(*) from users where id = $1 and team_id = $2`, [stranger.userId, stranger.teamId])).toBe(1);
    });

    describe('tokens issued before the deletion', () => {
      const ME = `{ me { userId teamId spaces { id } } }`;
      const HISTORY = `query($c: ID!) { toolResultHistory(conversationId: $c, first: 10) { edges { node { toolUseId } } } }`;
      /**
       * Past the second the deletion happened in (a token's iat has whole seconds): the wall clock
       * itself is the state waited for, not another party's progress; the service reads it too.
       */
      const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));

      it('R-RT-4 a token issued before deleteUserData is refused afterwards and does not bring the user back; a new token starts from nothing', async () => {
        const { admin, alice, bob } = await newTeam(t);
        const conversation = crypto.randomUUID();
        await record(t, alice, conversation, 2);
        // The same subject in another team is another user, and keeps working.
        const elsewhere = await identity(['memory:read'], { userId: alice.userId });
        await ok(t, ME, {}, elsewhere.token);

        await ok(t, DELETE_USER, { u: alice.userId }, admin.token);

        const refused = await gql(t, ME, {}, alice.token);
        expectErrorCode(refused, 'UNAUTHENTICATED');
        expect(refused.errors![0].message).toBe("The token was issued before its user's data was deleted; get a new token.");
        expectErrorCode(await gql(t, HISTORY, { c: conversation }, alice.token), 'UNAUTHENTICATED');
        expect(await scalar(t, `select count(*) from users where team_id = $1 and id = $2`, [alice.teamId, alice.userId])).toBe(0);
        // The lookup's two-argument form, which the previous release calls during a rolling deploy, knows no token's age: refused.
        await expect(t.sql.query('select * from actor_spaces($1, $2)', [alice.userId, alice.teamId])).rejects.toMatchObject({
          code: 'RL004',
        });
        // The teammate's token and the other team's user of the same subject are untouched.
        await ok(t, ME, {}, bob.token);
        await ok(t, ME, {}, elsewhere.token);

        await nextSecond();
        const fresh = await identity(['memory:read', 'memory:write'], { userId: alice.userId, teamId: alice.teamId });
        const me = await ok<{ me: { userId: string; spaces: unknown[] } }>(t, ME, {}, fresh.token);
        expect(me.me).toEqual({ userId: alice.userId, teamId: alice.teamId, spaces: [] });
        const history = await ok<{ toolResultHistory: { edges: unknown[] } }>(t, HISTORY, { c: conversation }, fresh.token);
        expect(history.toolResultHistory.edges).toEqual([]);
        const inTeam = (table: string) =>
          scalar(t, `select count(*) from ${table} where team_id = $1 and ${table === 'users' ? 'id' : 'user_id'} = $2`, [
            alice.teamId,
            alice.userId,
          ]);
        expect([await inTeam('users'), await inTeam('space_members'), await inTeam('message_tool_results')]).toEqual([1, 0, 0]);
        // The tokens from before stay refused, the user being back or not.
        expectErrorCode(await gql(t, ME, {}, alice.token), 'UNAUTHENTICATED');
      });

      it('R-RT-4 deleting an id never seen refuses its earlier tokens too, with the same answer as any deletion', async () => {
        const { admin } = await newTeam(t);
        const early = await identity(['memory:read'], { teamId: admin.teamId });
        const res = await deleteUser(admin, early.userId);
        expect(res.data!.deleteUserData.deleted).toEqual(USER_TABLES.map((table) => ({ table, count: 0 })));
        expectErrorCode(await gql(t, ME, {}, early.token), 'UNAUTHENTICATED');
        expect(await scalar(t, `select count(*) from users where team_id = $1 and id = $2`, [admin.teamId, early.userId])).toBe(0);
      });

      it('R-RT-4 R-RT-5 the sweep removes a tombstone once no token issued before it can be accepted (AUTH_TOKEN_MAX_AGE_SECONDS)', async () => {
        const { admin, alice, bob } = await newTeam(t);
        await ok(t, DELETE_USER, { u: alice.userId }, admin.token);
        await ok(t, DELETE_USER, { u: bob.userId }, admin.token);
        // Bob's deletion is older than any token the service accepts (30 days by default).
        await t.sql.query(`update user_tombstones set deleted_at = now() - interval '31 days' where team_id = $1 and user_id = $2`, [
          bob.teamId,
          bob.userId,
        ]);
        await sweepOk(t, admin);
        const kept = await t.sql.query<{ user_id: string }>('select user_id from user_tombstones where team_id = $1', [admin.teamId]);
        expect(kept.rows).toEqual([{ user_id: alice.userId }]);
      });
    });

    it('R-RT-4 a non-admin is FORBIDDEN; a malformed id is BAD_USER_INPUT', async () => {
      const { admin, alice, bob } = await newTeam(t);
      await record(t, alice, crypto.randomUUID(), 1);
      const aliceBefore = await userRows(alice.userId);

      const notAdmin = await gql(t, DELETE_USER, { u: alice.userId }, bob.token);
      expectErrorCode(notAdmin, 'FORBIDDEN');
      expect(await userRows(alice.userId)).toEqual(aliceBefore);

      const malformed = await deleteUser(admin, 'not-a-uuid');
      expectErrorCode(malformed, 'BAD_USER_INPUT');
      expect(await userRows(alice.userId)).toEqual(aliceBefore);
    });
  });
});
