/**
 * Team compaction policies through the API (R-LG-4): an admin sets, lists and deletes the team's
 * policy per tool; the version counts the changes; bad policies are refused naming the field; other
 * teams neither see them nor are touched by them, down to row-level security; compaction's read
 * (`CompactionPoliciesService.forTeam`) gives them by tool name.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestContext } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { withTenantScope } from '../../../src/database/tenant-scope';
import { CompactionPoliciesService } from '../../../src/compaction/compaction-policies/index';
import { ActorContext, Scope } from '../../../src/tenancy/index';
import {
  COMPACTION_POLICIES,
  type CompactionPolicyRow,
  DELETE_COMPACTION_POLICY,
  listCompactionPolicies,
  SET_COMPACTION_POLICY,
  setCompactionPolicy,
} from '../../support/compaction-policies';
import { expectErrorCode, gql, type GraphqlResponse, ok } from '../../support/graphql';
import { EXEMPT_MARKER } from '../../support/query-audit/plan-audit';
import { newMember, newSpace } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

interface Team {
  admin: TestIdentity;
  member: TestIdentity;
}

const DELETE_USER = `mutation($u: ID!) { deleteUserData(userId: $u) { userId } }`;

describe('Compaction policies (e2e)', () => {
  let t: TestApp;
  let a: Team;
  let b: Team;

  async function newTeam(): Promise<Team> {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin);
    return { admin, member: await newMember(t, admin, [spaceId], ['memory:read', 'memory:write']) };
  }

  /** The team's rows as the owner reads them (every row, no row-level security). */
  const storedRows = async (teamId: string) =>
    (
      await t.sql.query<{
        tool_name: string;
        never_compact: boolean;
        keep_last_n: number | null;
        size_threshold: number | null;
        version: number;
      }>(
        `select tool_name, never_compact, keep_last_n, size_threshold, version from tool_compaction_policies
          where team_id = $1 order by tool_name`,
        [teamId],
      )
    ).rows;

  const remove = async (admin: TestIdentity, tool: string): Promise<boolean> =>
    (await ok<{ deleteToolCompactionPolicy: boolean }>(t, DELETE_COMPACTION_POLICY, { tool }, admin.token)).deleteToolCompactionPolicy;

  /** What compaction reads for the user's requests: the service the app runs, called as a request of that user. */
  async function forTeam(who: TestIdentity) {
    const actor = new ActorContext(who.userId, who.teamId, [Scope.MEMORY_WRITE], []);
    const em = t.app.get(MikroORM).em;
    return RequestContext.create(em, () =>
      withTenantScope({ teamId: who.teamId, userId: who.userId }, () => t.app.get(CompactionPoliciesService).forTeam(actor)),
    );
  }

  /** Waits until `n` backends wait for a team row lock (the policy writes queued behind the blocker). */
  async function waitForTeamLockWaiters(n: number): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const { rows } = await t.sql.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from teams%for no key update%'`,
      );
      if (rows[0].n >= n) return;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${n} policy writes waited for the team's row lock`);
      await sleep(25); // a pause between reads of pg_stat_activity, not a wait in their place
    }
  }

  beforeAll(async () => {
    // Four writes of one team wait on its row lock at once below: more turns than the three teams share (R-TN-11).
    t = await createTestApp({ MAX_IN_FLIGHT: '8' });
    a = await newTeam();
    b = await newTeam();
  });
  afterAll(() => t?.close());

  it('R-LG-4 an admin sets, lists and deletes policies; version grows on each change and not on the same policy again', async () => {
    const saved = await setCompactionPolicy(t, a.admin, 'search_orders', { keepLastN: 1, sizeThreshold: 500 });
    expect(saved).toEqual({
      toolName: 'search_orders',
      neverCompact: false,
      keepLastN: 1,
      sizeThreshold: 500,
      clearInputs: false,
      version: 1,
      updatedAt: expect.any(String),
    });
    const never = await setCompactionPolicy(t, a.admin, 'fetch_page', { neverCompact: true });
    expect(never).toMatchObject({ neverCompact: true, keepLastN: null, sizeThreshold: null, clearInputs: false, version: 1 });
    expect(await listCompactionPolicies(t, a.admin)).toEqual([never, saved]);

    // A set replaces the whole policy: what it leaves out is unset again.
    const changed = await setCompactionPolicy(t, a.admin, 'search_orders', { sizeThreshold: 500, clearInputs: true });
    expect(changed).toMatchObject({ keepLastN: null, sizeThreshold: 500, clearInputs: true, version: 2 });
    expect(new Date(changed.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(saved.updatedAt).getTime());
    const again = await setCompactionPolicy(t, a.admin, 'search_orders', { sizeThreshold: 500, clearInputs: true });
    expect(again).toEqual(changed);
    expect((await setCompactionPolicy(t, a.admin, 'search_orders', { keepLastN: 0 })).version).toBe(3);

    expect(await remove(a.admin, 'fetch_page')).toBe(true);
    expect(await remove(a.admin, 'fetch_page')).toBe(false);
    expect((await listCompactionPolicies(t, a.admin)).map((p) => [p.toolName, p.version])).toEqual([['search_orders', 3]]);
    // Set again after its deletion, a policy starts over.
    expect((await setCompactionPolicy(t, a.admin, 'fetch_page', { neverCompact: true })).version).toBe(1);
  });

  it('R-LG-4 R-TN-6 a token without the admin scope can neither read nor change the policies', async () => {
    const team = await newTeam();
    await setCompactionPolicy(t, team.admin, 'search_orders', { keepLastN: 2 });
    for (const [query, variables] of [
      [COMPACTION_POLICIES, {}],
      [SET_COMPACTION_POLICY, { tool: 'search_orders', policy: { neverCompact: true } }],
      [SET_COMPACTION_POLICY, { tool: 'another_tool', policy: { keepLastN: 1 } }],
      [DELETE_COMPACTION_POLICY, { tool: 'search_orders' }],
    ] as const) {
      expectErrorCode(await gql(t, query, variables, team.member.token), 'FORBIDDEN');
    }
    expect(await storedRows(team.admin.teamId)).toEqual([
      { tool_name: 'search_orders', never_compact: false, keep_last_n: 2, size_threshold: null, version: 1 },
    ]);
  });

  it("R-LG-4 another team neither sees a team's policies nor is affected by them, and keeps its own", async () => {
    const teamA = await newTeam();
    const teamB = await newTeam();
    await setCompactionPolicy(t, teamA.admin, 'search_orders', { keepLastN: 5 });
    expect(await listCompactionPolicies(t, teamB.admin)).toEqual([]);
    expect((await forTeam(teamB.member)).size).toBe(0);

    // The same tool in B is B's own policy, at version 1; B's changes and deletions leave A's as it was.
    expect(await setCompactionPolicy(t, teamB.admin, 'search_orders', { neverCompact: true })).toMatchObject({ version: 1 });
    expect(await setCompactionPolicy(t, teamB.admin, 'search_orders', { sizeThreshold: 9 })).toMatchObject({ version: 2 });
    expect(await remove(teamB.admin, 'search_orders')).toBe(true);
    expect(await remove(teamB.admin, 'search_orders')).toBe(false);
    expect(await listCompactionPolicies(t, teamA.admin)).toEqual([
      expect.objectContaining({ toolName: 'search_orders', keepLastN: 5, version: 1 }),
    ]);
    expect(await storedRows(teamA.admin.teamId)).toEqual([
      { tool_name: 'search_orders', never_compact: false, keep_last_n: 5, size_threshold: null, version: 1 },
    ]);
    expect(await storedRows(teamB.admin.teamId)).toEqual([]);
  });

  it("R-LG-4 R-TN-8 as the request role with another team's settings, a statement that forgot its team neither reads nor changes them", async () => {
    const teamA = await newTeam();
    const teamB = await newTeam();
    await setCompactionPolicy(t, teamA.admin, 'search_orders', { keepLastN: 5 });
    await setCompactionPolicy(t, teamB.admin, 'fetch_page', { neverCompact: true });
    const app = new Client({ connectionString: t.database.appUrl });
    await app.connect();
    /** Runs `work` as the request role in a transaction with `teamId`'s settings, then rolls back. */
    async function asTeam<T>(teamId: string | null, work: () => Promise<T>): Promise<T> {
      await app.query('begin');
      try {
        if (teamId !== null) await app.query(`select set_config('app.team_id', $1, true)`, [teamId]);
        return await work();
      } finally {
        await app.query('rollback');
      }
    }
    // Without its team on purpose: the query audit leaves it out (docs/testing.md, "The query audit").
    const visible = async () =>
      (
        await app.query<{ key: string }>(
          `/* ${EXEMPT_MARKER}: R-TN-8 probe */ select team_id || '/' || tool_name as key from tool_compaction_policies order by 1`,
        )
      ).rows.map((r) => r.key);
    try {
      expect(await asTeam(teamA.admin.teamId, visible)).toEqual(expect.arrayContaining([`${teamA.admin.teamId}/search_orders`]));
      const seenByB = await asTeam(teamB.admin.teamId, visible);
      expect(seenByB).toEqual([`${teamB.admin.teamId}/fetch_page`]);
      expect(await asTeam(null, visible)).toEqual([]);

      // B's settings: A's row is out of reach for reads, changes and deletions; an insert under A's id is refused.
      await asTeam(teamB.admin.teamId, async () => {
        const read = await app.query('select 1 from tool_compaction_policies where team_id = $1', [teamA.admin.teamId]);
        expect(read.rowCount).toBe(0);
        const updated = await app.query('update tool_compaction_policies set keep_last_n = 0 where team_id = $1', [teamA.admin.teamId]);
        expect(updated.rowCount).toBe(0);
        const deleted = await app.query('delete from tool_compaction_policies where team_id = $1', [teamA.admin.teamId]);
        expect(deleted.rowCount).toBe(0);
      });
      await asTeam(teamB.admin.teamId, async () => {
        await expect(
          app.query(
            `insert into tool_compaction_policies (team_id, tool_name, never_compact, clear_inputs, version) values ($1, 'planted', true, false, 1)`,
            [teamA.admin.teamId],
          ),
        ).rejects.toMatchObject({ code: '42501' });
      });
      // Compaction's read, called with A's team inside B's scope, is refused rather than answered.
      await asTeam(teamB.admin.teamId, async () => {
        await expect(app.query('select * from tool_compaction_policies_of($1)', [teamA.admin.teamId])).rejects.toMatchObject({
          code: 'RL003',
        });
      });
    } finally {
      await app.end();
    }
    expect(await storedRows(teamA.admin.teamId)).toEqual([
      { tool_name: 'search_orders', never_compact: false, keep_last_n: 5, size_threshold: null, version: 1 },
    ]);
  });

  it('R-LG-4 a bad policy or tool name is BAD_USER_INPUT naming the field and what to change, with nothing stored', async () => {
    const team = await newTeam();
    await setCompactionPolicy(t, team.admin, 'run_query', { keepLastN: 3 });
    const refused = async (tool: string, policy: Record<string, unknown>, field: string): Promise<string> =>
      expectErrorCode(await gql(t, SET_COMPACTION_POLICY, { tool, policy }, team.admin.token), 'BAD_USER_INPUT', { field }).message;

    for (const tool of ['run_query', 'fetch_page']) {
      expect(await refused(tool, { keepLastN: 1001 }, 'policy.keepLastN')).toBe(
        'policy.keepLastN must be a whole number from 0 to 1,000; got 1001.',
      );
      expect(await refused(tool, { keepLastN: -1 }, 'policy.keepLastN')).toMatch(/from 0 to 1,000; got -1\.$/);
      expect(await refused(tool, { sizeThreshold: 0 }, 'policy.sizeThreshold')).toBe(
        'policy.sizeThreshold must be a whole number from 1 to 10,000,000; got 0.',
      );
      expect(await refused(tool, { sizeThreshold: 10_000_001 }, 'policy.sizeThreshold')).toMatch(/got 10000001\.$/);
      expect(await refused(tool, {}, 'policy')).toBe(
        'policy sets nothing; give at least one of neverCompact, keepLastN, sizeThreshold, clearInputs.',
      );
      expect(await refused(tool, { neverCompact: true, keepLastN: 2 }, 'policy.keepLastN')).toBe(
        `policy.neverCompact is true: every result and input of "${tool}" stays as it is, so keepLastN would never apply; ` +
          'remove it, or set neverCompact to false.',
      );
      expect(await refused(tool, { neverCompact: true, sizeThreshold: 10, clearInputs: true }, 'policy.sizeThreshold')).toMatch(
        /so sizeThreshold and clearInputs would never apply; remove them, or set neverCompact to false\.$/,
      );
    }
    expect(await refused('run query', { keepLastN: 1 }, 'toolName')).toBe(
      'toolName must be 1 to 128 characters without white space, as recordToolResults takes it.',
    );
    expect(await refused('t'.repeat(129), { keepLastN: 1 }, 'toolName')).toMatch(/^toolName must be 1 to 128 characters/);
    expectErrorCode(await gql(t, DELETE_COMPACTION_POLICY, { tool: '' }, team.admin.token), 'BAD_USER_INPUT', { field: 'toolName' });
    // A value outside GraphQL's Int is refused before the service is reached.
    expect(
      (await gql(t, SET_COMPACTION_POLICY, { tool: 'run_query', policy: { keepLastN: 2 ** 40 } }, team.admin.token)).errors,
    ).toHaveLength(1);

    // The stored policy and its version are as they were; none for the other tool.
    expect(await storedRows(team.admin.teamId)).toEqual([
      { tool_name: 'run_query', never_compact: false, keep_last_n: 3, size_threshold: null, version: 1 },
    ]);
  });

  it('R-LG-4 a team holds policies for at most 100 tools, also when admins add them at once, and says so', async () => {
    const team = await newTeam();
    // 98 set directly, then four new tools at once, released together from behind a lock of the team's row: the write path
    // waits for that lock (a write that did not would pass this point alone), and then lets exactly two in.
    await t.sql.query(
      `insert into tool_compaction_policies (team_id, tool_name, never_compact, keep_last_n, clear_inputs, version)
       select $1, 'tool_' || i, false, 1, false, 1 from generate_series(1, 98) i`,
      [team.admin.teamId],
    );
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    let racing: GraphqlResponse[];
    try {
      await blocker.query('begin');
      await blocker.query('select 1 from teams where id = $1 for no key update', [team.admin.teamId]);
      const requests = ['new_1', 'new_2', 'new_3', 'new_4'].map((tool) =>
        gql(t, SET_COMPACTION_POLICY, { tool, policy: { keepLastN: 1 } }, team.admin.token),
      );
      await waitForTeamLockWaiters(4);
      await blocker.query('commit');
      racing = await Promise.all(requests);
    } finally {
      await blocker.end();
    }
    const refused = racing.filter((res) => res.errors !== undefined);
    expect(racing.length - refused.length).toBe(2);
    for (const res of refused) {
      const error = expectErrorCode(res, 'BAD_USER_INPUT', { field: 'toolName' });
      expect(error.message).toMatch(
        /^The team already has compaction policies for 100 tools, the limit; delete one \(deleteToolCompactionPolicy\) before adding a policy for "new_\d"\.$/,
      );
    }
    expect(await storedRows(team.admin.teamId)).toHaveLength(100);
    expect(await listCompactionPolicies(t, team.admin)).toHaveLength(100);
    expect((await forTeam(team.member)).size).toBe(100);

    // At the limit a tool that has a policy can still change it, and a deletion makes room.
    expect((await setCompactionPolicy(t, team.admin, 'tool_1', { keepLastN: 2 })).version).toBe(2);
    expect(await remove(team.admin, 'tool_2')).toBe(true);
    expect((await setCompactionPolicy(t, team.admin, 'tool_101', { keepLastN: 1 })).version).toBe(1);
    expect(await storedRows(team.admin.teamId)).toHaveLength(100);
  });

  it("R-LG-4 forTeam gives compaction the team's policies by tool name, as they stand after each change", async () => {
    const team = await newTeam();
    expect(await forTeam(team.member)).toEqual(new Map());
    await setCompactionPolicy(t, team.admin, 'search_orders', { keepLastN: 0, sizeThreshold: 800 });
    await setCompactionPolicy(t, team.admin, 'fetch_page', { neverCompact: true });
    await setCompactionPolicy(t, team.admin, 'run_query', { clearInputs: true });
    await setCompactionPolicy(t, b.admin, 'other_teams_tool', { keepLastN: 9 });

    const policies = await forTeam(team.member);
    expect(policies).toEqual(
      new Map([
        ['fetch_page', { toolName: 'fetch_page', neverCompact: true, keepLastN: null, sizeThreshold: null, clearInputs: false }],
        ['run_query', { toolName: 'run_query', neverCompact: false, keepLastN: null, sizeThreshold: null, clearInputs: true }],
        ['search_orders', { toolName: 'search_orders', neverCompact: false, keepLastN: 0, sizeThreshold: 800, clearInputs: false }],
      ]),
    );
    // An admin's token reads the same map: the policies are the team's, not a user's.
    expect(await forTeam(team.admin)).toEqual(policies);

    await setCompactionPolicy(t, team.admin, 'search_orders', { keepLastN: 4 });
    await remove(team.admin, 'fetch_page');
    const after = await forTeam(team.member);
    expect([...after.keys()].sort()).toEqual(['run_query', 'search_orders']);
    expect(after.get('search_orders')).toEqual({
      toolName: 'search_orders',
      neverCompact: false,
      keepLastN: 4,
      sizeThreshold: null,
      clearInputs: false,
    });
    expect(after.get('other_teams_tool')).toBeUndefined();
  });

  it("R-LG-4 R-RT-4 the policies are the team's: a user's deletion leaves them, the team's deletion takes them", async () => {
    const team = await newTeam();
    const otherAdmin = await identity(['admin'], { teamId: team.admin.teamId });
    await setCompactionPolicy(t, team.admin, 'search_orders', { keepLastN: 1 });
    await ok(t, DELETE_USER, { u: team.admin.userId }, otherAdmin.token);
    expect(await storedRows(team.admin.teamId)).toHaveLength(1);
    expect((await forTeam(team.member)).get('search_orders')).toMatchObject({ keepLastN: 1 });
    expect((await listCompactionPolicies(t, otherAdmin)).map((p: CompactionPolicyRow) => p.toolName)).toEqual(['search_orders']);

    await t.sql.query('delete from teams where id = $1', [team.admin.teamId]);
    expect(await storedRows(team.admin.teamId)).toEqual([]);
  });
});
