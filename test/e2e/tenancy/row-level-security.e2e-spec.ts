import { Client } from 'pg';
import { REQUEST_ROLE } from '../../../src/database/request-role';
import { fine, newTeam, recallEvent, submitOk, type Team } from '../../support/feedback-fixtures';
import { RECORD, toolResult } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { EXEMPT_MARKER } from '../../support/query-audit/plan-audit';
import { setCompactionPolicy } from '../../support/compaction-policies';
import { ORDERS_RULE, setSummaryRule } from '../../support/summary-rules';
import { newMember } from '../../support/tenancy';
import { createTestApp, type TestApp, type TestIdentity } from '../../support/test-app';

/**
 * R-TN-8: row-level security under the repositories. Each check runs a statement that forgot its
 * tenant predicate (the repository bug the policies exist for), as the role the service runs as.
 */

/** Every tenant table: a row's key, and (read as the owner) the team it belongs to. */
const TENANT_TABLES: Record<string, { key: string; team: string }> = {
  teams: { key: 'id::text', team: 'id' },
  users: { key: "team_id || '/' || id", team: 'team_id' },
  spaces: { key: "team_id || '/' || id", team: 'team_id' },
  space_members: { key: "team_id || '/' || space_id || '/' || user_id", team: 'team_id' },
  team_feature_flags: { key: "team_id || '/' || key", team: 'team_id' },
  conversations: { key: "team_id || '/' || id", team: 'team_id' },
  messages: { key: "team_id || '/' || id", team: 'team_id' },
  message_tool_results: { key: "team_id || '/' || id", team: 'team_id' },
  recall_events: { key: "team_id || '/' || id", team: 'team_id' },
  feedback_events: { key: "team_id || '/' || id", team: 'team_id' },
  tool_summary_rules: { key: "team_id || '/' || tool_name", team: 'team_id' },
  tool_compaction_policies: { key: "team_id || '/' || tool_name", team: 'team_id' },
  user_tombstones: { key: "team_id || '/' || user_id", team: 'team_id' },
};
const TABLES = Object.keys(TENANT_TABLES);

/** Tables whose rows belong to one user of the team, and the column naming the user: the policy is user-deep, writes too. */
const USER_COLUMN: Record<string, string> = {
  conversations: 'user_id',
  messages: 'user_id',
  message_tool_results: 'user_id',
  recall_events: 'profile_id',
  feedback_events: 'actor_id',
};
const USER_DEEP = Object.keys(USER_COLUMN);

describe('Row-level security (R-TN-8)', () => {
  let t: TestApp;
  let a: Team;
  let b: Team;
  let teammate: TestIdentity;
  let app: Client;

  /**
   * A tool result, a recall event and a feedback event of the member, a summary rule and a
   * compaction policy of the team, a deleted user's tombstone: a row in every tenant table.
   */
  async function fillTeam(team: Team, who: TestIdentity = team.member): Promise<void> {
    await ok(t, RECORD, { input: [toolResult(team.spaces[0], crypto.randomUUID())] }, who.token);
    const eventId = await recallEvent(t, who, { spaceId: team.spaces[0] });
    await submitOk(t, who, [fine(eventId)]);
    await setSummaryRule(t, team.admin, 'search_orders', ORDERS_RULE);
    await setCompactionPolicy(t, team.admin, 'search_orders', { keepLastN: 1 });
    await ok(t, `mutation($u: ID!) { deleteUserData(userId: $u) { userId } }`, { u: crypto.randomUUID() }, team.admin.token);
  }

  beforeAll(async () => {
    t = await createTestApp();
    a = await newTeam(t);
    b = await newTeam(t);
    teammate = await newMember(t, a.admin, a.spaces, ['memory:read', 'memory:write', 'feedback:write']);
    await fillTeam(a);
    await fillTeam(a, teammate);
    await fillTeam(b);
    app = new Client({ connectionString: t.database.appUrl });
    await app.connect();
  });

  afterAll(async () => {
    await app?.end();
    await t?.close();
  });

  /** The keys the request role sees in `table` with these settings (none: nothing set). */
  async function visibleKeys(table: string, settings: { team?: string; user?: string }): Promise<string[]> {
    await app.query('begin');
    try {
      if (settings.team) await app.query(`select set_config('app.team_id', $1, true)`, [settings.team]);
      if (settings.user) await app.query(`select set_config('app.user_id', $1, true)`, [settings.user]);
      // Without its team on purpose: the query audit leaves it out (docs/testing.md, "The query audit").
      const { rows } = await app.query<{ key: string }>(
        `/* ${EXEMPT_MARKER}: R-TN-8 probe */ select ${TENANT_TABLES[table].key} as key from ${table}`,
      );
      return rows.map((r) => r.key);
    } finally {
      await app.query('rollback');
    }
  }

  /** Keys of `table`'s rows, read as the owner, that belong to `teamId` (and `userId`, where rows have one). */
  async function keysOf(table: string, teamId: string, userId?: string): Promise<string[]> {
    const byUser = userId ? ` and ${USER_COLUMN[table]} = '${userId}'` : '';
    const { rows } = await t.sql.query<{ key: string }>(
      `select ${TENANT_TABLES[table].key} as key from ${table} where ${TENANT_TABLES[table].team} = $1${byUser}`,
      [teamId],
    );
    return rows.map((r) => r.key);
  }

  /** What team A's scope sees of team B: the isolation check. */
  async function leakedToA(table: string): Promise<string[]> {
    const seen = new Set(await visibleKeys(table, { team: a.admin.teamId }));
    return (await keysOf(table, b.admin.teamId)).filter((key) => seen.has(key));
  }

  it('R-TN-8 every table of the schema has row-level security enabled, forced and a tenant policy, but the three that hold no tenant data', async () => {
    const { rows } = await t.sql.query<{ table: string; enabled: boolean; forced: boolean; policy: boolean }>(
      `select c.relname as "table", c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
              exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = 'tenant_rows') as policy
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`,
    );
    // The flags' global defaults are a reference table: every team reads them, none writes them.
    const untenanted = ['feature_flags', 'mikro_orm_migrations', 'retention_leases'];
    const tenant = rows.filter((r) => !untenanted.includes(r.table));
    // A new table is either a tenant table, with its policy and its row in TENANT_TABLES, or listed above.
    expect(tenant.map((r) => r.table).sort()).toEqual([...TABLES].sort());
    for (const row of tenant) expect(row).toEqual({ table: row.table, enabled: true, forced: true, policy: true });
  });

  it('R-TN-8 every tenant table has rows of both teams to leak (the checks below can fail)', async () => {
    for (const table of TABLES) {
      expect({ table, a: (await keysOf(table, a.admin.teamId)).length > 0 }).toEqual({ table, a: true });
      expect({ table, b: (await keysOf(table, b.admin.teamId)).length > 0 }).toEqual({ table, b: true });
    }
  });

  it.each(TABLES)('R-TN-8 %s: team A sees its own rows and none of team B, and does with the policy disabled', async (table) => {
    const own = await keysOf(table, a.admin.teamId);
    expect((await visibleKeys(table, { team: a.admin.teamId })).sort()).toEqual(expect.arrayContaining(own.sort()));
    expect(await leakedToA(table)).toEqual([]);

    // The same check without the table's policy: B's rows come through, so the policy is what held.
    await t.sql.query(`alter table ${table} disable row level security`);
    try {
      expect((await leakedToA(table)).length).toBeGreaterThan(0);
    } finally {
      await t.sql.query(`alter table ${table} enable row level security`);
    }
    expect(await leakedToA(table)).toEqual([]);
  });

  // User-deep: with the request's user set, a teammate's rows are not there, whatever the statement forgot.
  it.each(USER_DEEP)(
    "R-TN-8 %s: with the user set, a teammate's rows are not visible either, and are without the policy's user clause",
    async (table) => {
      const mine = await keysOf(table, a.admin.teamId, a.member.userId);
      const theirs = await keysOf(table, a.admin.teamId, teammate.userId);
      expect(mine.length).toBeGreaterThan(0);
      expect(theirs.length).toBeGreaterThan(0);
      const seen = await visibleKeys(table, { team: a.admin.teamId, user: a.member.userId });
      expect(seen.sort()).toEqual(mine.sort());
      // Team-wide (a team admin's maintenance: no user set) both are visible.
      expect(await visibleKeys(table, { team: a.admin.teamId })).toEqual(expect.arrayContaining([...mine, ...theirs]));

      // The user clause is what held: with the policy cut back to the team, the teammate's rows come through.
      const { rows: policy } = await t.sql.query<{ qual: string; with_check: string }>(
        `select qual, with_check from pg_policies where tablename = $1 and policyname = 'tenant_rows'`,
        [table],
      );
      const team = '(select rl_team())';
      await t.sql.query(`alter policy tenant_rows on ${table} using (team_id = ${team}) with check (team_id = ${team})`);
      try {
        expect(await visibleKeys(table, { team: a.admin.teamId, user: a.member.userId })).toEqual(expect.arrayContaining(theirs));
      } finally {
        await t.sql.query(`alter policy tenant_rows on ${table} using (${policy[0].qual}) with check (${policy[0].with_check})`);
      }
      expect(await visibleKeys(table, { team: a.admin.teamId, user: a.member.userId })).toEqual(mine);
    },
  );

  it("R-TN-8 a teammate's statement that forgot the user (and the join) still reads only its own user's snapshots", async () => {
    await app.query('begin');
    try {
      await app.query(`select set_config('app.team_id', $1, true), set_config('app.user_id', $2, true)`, [a.admin.teamId, teammate.userId]);
      // The team is named, the user is not: under the team-only policy of before, every snapshot of the team came back.
      const { rows } = await app.query<{ user_id: string }>('select distinct user_id from message_tool_results where team_id = $1', [
        a.admin.teamId,
      ]);
      expect(rows.map((r) => r.user_id)).toEqual([teammate.userId]);
    } finally {
      await app.query('rollback');
    }
  });

  it('R-TN-8 with no settings the request role sees no tenant row at all', async () => {
    for (const table of TABLES) {
      expect({ table, rows: await visibleKeys(table, {}) }).toEqual({ table, rows: [] });
    }
  });

  it("R-TN-7 R-TN-8 the flags' global defaults are read by every request and written by none", async () => {
    const { rows } = await app.query<{ key: string }>('select key from feature_flags order by key');
    expect(rows.length).toBeGreaterThan(0);
    await expect(app.query(`update feature_flags set enabled = not enabled`)).rejects.toMatchObject({ code: '42501' });
    await expect(app.query(`insert into feature_flags (key, enabled) values ('planted', true)`)).rejects.toMatchObject({ code: '42501' });
  });

  it("R-TN-8 R-TN-9 a write cannot tie a row to another team's space: the foreign keys carry the team, and without them it could", async () => {
    const [{ id: spaceOfB }] = (await t.sql.query<{ id: string }>('select id from spaces where team_id = $1 limit 1', [b.admin.teamId]))
      .rows;
    /** Team A's scope writes a row of team A that names B's space; the error code, or null when written. */
    const writeAsA = async (sql: string): Promise<string | null> => {
      await app.query('begin');
      try {
        await app.query(`select set_config('app.team_id', $1, true)`, [a.admin.teamId]);
        await app.query(sql, [a.admin.teamId, spaceOfB, a.member.userId]);
        return null;
      } catch (error) {
        return (error as { code: string }).code;
      } finally {
        await app.query('rollback');
      }
    };
    const writes: [table: string, constraint: string, sql: string][] = [
      [
        'space_members',
        'space_members_team_id_space_id_foreign',
        'insert into space_members (team_id, space_id, user_id) values ($1, $2, $3)',
      ],
      [
        'conversations',
        'conversations_team_id_space_id_foreign',
        'insert into conversations (team_id, id, space_id, user_id) values ($1, gen_random_uuid(), $2, $3)',
      ],
    ];
    for (const [table, constraint, sql] of writes) {
      // Foreign-key checks bypass row-level security; the key (team_id, space_id) does not find B's space under A.
      expect({ table, refused: await writeAsA(sql) }).toEqual({ table, refused: '23503' });
      // The key is what held: without it, row-level security alone lets the row through (it is team A's).
      const { rows } = await t.sql.query<{ definition: string }>(
        `select pg_get_constraintdef(oid) as definition from pg_constraint where conname = $1`,
        [constraint],
      );
      await t.sql.query(`alter table ${table} drop constraint ${constraint}`);
      try {
        expect({ table, refused: await writeAsA(sql) }).toEqual({ table, refused: null });
      } finally {
        await t.sql.query(`alter table ${table} add constraint ${constraint} ${rows[0].definition}`);
      }
      expect({ table, refused: await writeAsA(sql) }).toEqual({ table, refused: '23503' });
    }
  });

  it('R-TN-8 a database function that sets the scope refuses to change one already set (RL003)', async () => {
    await app.query('begin');
    try {
      await app.query(`select set_config('app.team_id', $1, true), set_config('app.user_id', $2, true)`, [a.admin.teamId, a.member.userId]);
      await app.query('savepoint s');
      await expect(app.query('select * from actor_spaces($1, $2, now())', [b.member.userId, b.admin.teamId])).rejects.toMatchObject({
        code: 'RL003',
        message: "the transaction's tenant scope is already set to another team",
      });
      await app.query('rollback to savepoint s');
      await expect(app.query('select * from actor_spaces($1, $2, now())', [teammate.userId, a.admin.teamId])).rejects.toMatchObject({
        code: 'RL003',
        message: "the transaction's tenant scope is already set to another user of the team",
      });
      await app.query('rollback to savepoint s');
      // The same scope again is fine: the guard's own call inside a request's transaction.
      const { rows } = await app.query('select * from actor_spaces($1, $2, now())', [a.member.userId, a.admin.teamId]);
      expect(rows.length).toBeGreaterThan(0);
    } finally {
      await app.query('rollback');
    }

    // The check is what held: an rl_enter that only sets lets the same call move the transaction to team B.
    const { rows: original } = await t.sql.query<{ definition: string }>(
      `select pg_get_functiondef('rl_enter(uuid, uuid)'::regprocedure) as definition`,
    );
    await t.sql.query(`create or replace function rl_enter(p_team uuid, p_user uuid) returns void language sql as
      $fn$ select set_config('app.team_id', p_team::text, true), set_config('app.user_id', p_user::text, true) $fn$`);
    try {
      await app.query('begin');
      try {
        await app.query(`select set_config('app.team_id', $1, true), set_config('app.user_id', $2, true)`, [
          a.admin.teamId,
          a.member.userId,
        ]);
        const { rows } = await app.query<{ team_id: string }>('select * from actor_spaces($1, $2, now())', [
          b.member.userId,
          b.admin.teamId,
        ]);
        expect(rows.map((r) => r.team_id)).toContain(b.admin.teamId);
      } finally {
        await app.query('rollback');
      }
    } finally {
      await t.sql.query(original[0].definition);
    }
  });

  it("R-TN-8 a write into another team's rows is refused or touches nothing", async () => {
    await app.query('begin');
    try {
      await app.query(`select set_config('app.team_id', $1, true)`, [a.admin.teamId]);
      await expect(
        app.query(`insert into spaces (id, team_id, name) values (gen_random_uuid(), $1, 'planted')`, [b.admin.teamId]),
      ).rejects.toMatchObject({ code: '42501' });
    } finally {
      await app.query('rollback');
    }
    await app.query('begin');
    try {
      await app.query(`select set_config('app.team_id', $1, true)`, [a.admin.teamId]);
      const updated = await app.query(`update message_tool_results set tool_name = 'planted' where team_id = $1`, [b.admin.teamId]);
      const deleted = await app.query(`delete from recall_events where team_id = $1`, [b.admin.teamId]);
      expect([updated.rowCount, deleted.rowCount]).toEqual([0, 0]);
    } finally {
      await app.query('rollback');
    }
  });

  /** Runs `sql` as the request role in team A's member's scope, in a transaction rolled back after. */
  async function asMemberOfA(sql: string, params: unknown[]): Promise<unknown> {
    await app.query('begin');
    try {
      await app.query(`select set_config('app.team_id', $1, true), set_config('app.user_id', $2, true)`, [
        a.member.teamId,
        a.member.userId,
      ]);
      return await app.query(`/* ${EXEMPT_MARKER}: R-TN-8 write probe */ ${sql}`, params);
    } finally {
      await app.query('rollback');
    }
  }

  /**
   * A member's INSERT of a copy of its own row `key` of `table` with `column` set to `$1`. An
   * insert, not an update: an UPDATE's new row must also pass the policy's USING (a FOR ALL
   * policy is its SELECT policy too), which would hide a loosened WITH CHECK; an insert meets the
   * WITH CHECK alone, and before the table's constraints and keys.
   */
  async function copyOfOwnRow(table: string, key: string, column: string, value: string): Promise<unknown> {
    const { rows } = await t.sql.query<{ columns: string[] }>(
      `select array_agg(attname::text order by attnum) as columns from pg_attribute
        where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = ''`,
      [table],
    );
    const names = rows[0].columns;
    const values = names.map((name) => (name === column ? '$1' : name));
    const probe = `insert into ${table} (${names.join(', ')}) select ${values.join(', ')} from ${table} where ${TENANT_TABLES[table].key} = $2`;
    return asMemberOfA(probe, [value, key]);
  }

  it.each(TABLES)("R-TN-8 %s: the member's write of a row of another team is refused by the policy's WITH CHECK", async (table) => {
    const [key] = await visibleKeys(table, { team: a.member.teamId, user: a.member.userId });
    expect(key).toBeDefined();
    // The policy's check comes before the foreign keys and unique keys: a looser check would end in 23503 or 23505, or succeed.
    await expect(copyOfOwnRow(table, key, TENANT_TABLES[table].team, b.admin.teamId)).rejects.toMatchObject({
      code: '42501',
      message: expect.stringMatching(/new row violates row-level security policy/),
    });
  });

  it.each(USER_DEEP)(
    "R-TN-8 %s: the member's write carrying a teammate's id as its user is refused by the policy's WITH CHECK",
    async (table) => {
      const [key] = await visibleKeys(table, { team: a.member.teamId, user: a.member.userId });
      expect(key).toBeDefined();
      // The teammate is a user of the team: the foreign key would let the row through.
      await expect(copyOfOwnRow(table, key, USER_COLUMN[table], teammate.userId)).rejects.toMatchObject({
        code: '42501',
        message: expect.stringMatching(/new row violates row-level security policy/),
      });
    },
  );

  it('R-TN-8 the request role owns nothing, cannot alter a table, drop a policy, turn security off or become another role', async () => {
    const { rows } = await app.query<{ rolname: string; rolsuper: boolean; rolbypassrls: boolean; owns: boolean }>(
      `select rolname, rolsuper, rolbypassrls,
              exists (select 1 from pg_tables where schemaname = 'public' and tableowner = current_user) as owns
         from pg_roles where rolname = current_user`,
    );
    expect(rows[0]).toEqual({ rolname: REQUEST_ROLE, rolsuper: false, rolbypassrls: false, owns: false });
    for (const statement of [
      'alter table message_tool_results disable row level security',
      'alter table message_tool_results no force row level security',
      'drop policy tenant_rows on message_tool_results',
      'create policy open_rows on message_tool_results using (true)',
      'set role postgres',
    ]) {
      await expect(app.query(statement)).rejects.toMatchObject({ code: '42501' });
    }
    // row_security = off does not bypass: a query the policies would filter is refused instead.
    await app.query('begin');
    try {
      await app.query(`select set_config('app.team_id', $1, true)`, [a.admin.teamId]);
      await app.query('set local row_security = off');
      await expect(app.query('select id from message_tool_results')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await app.query('rollback');
    }
  });
});
