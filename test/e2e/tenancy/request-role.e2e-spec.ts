import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { prepareDatabase, REQUEST_ROLE, withCredentials } from '../../../src/database/request-role';
import { createTestDatabase, type TestDatabase, withAdminClient } from '../../support/test-database';

/**
 * R-TN-8 (issue 37) and R-TN-11 (issue 53): start-up refuses a DATABASE_APP_URL whose role could
 * get round row-level security — itself, or through any role it can reach by membership — in one
 * line that names what it found and the statements that fix it. Real login roles on the run's
 * server (unique names, dropped afterwards), checked by the start-up path itself on a migrated
 * database. Here the tables' owner is the role that ran the migrations (the run's superuser, or
 * TEST_DATABASE_URL's); `rl_team()` is given to a plain role of its own, an owner with no attribute.
 * Per-grant INHERIT and SET options are PostgreSQL 16's; on 15 (`TEST_DATABASE_URL`), where every
 * membership allows SET ROLE, a plain grant stands for one that only allows SET ROLE.
 */

const suffix = randomBytes(4).toString('hex');
const roleName = (what: string): string => `rl_t_${what}_${suffix}`;
const PASSWORD = randomBytes(18).toString('base64url');

/** The one line start-up refuses `role` with: what it found, then the statements that fix it. */
const refusal = (role: string, problems: string, fixes: string): string =>
  `The request-time database role "${role}" ${problems}; row-level security needs a login role that owns nothing here, has none of ` +
  `SUPERUSER, BYPASSRLS, CREATEROLE and REPLICATION, reaches no role that has one, owns something here or reads the server's files ` +
  `through any membership, and is granted ${REQUEST_ROLE}: ${fixes} (see docs/configuration.md: DATABASE_APP_URL).`;

/** The problem of a role that can reach `found` (each `"name" (what it can do)`), by its grants of `through`. */
const reaches = (found: string, through: string): string =>
  `can reach ${found} through membership (directly, through another role or by SET ROLE) by its grant of ${through}`;

describe('Start-up refuses a request role that could get round row-level security (R-TN-8, R-TN-11, real roles)', () => {
  let db: TestDatabase;
  let owner: string;
  let functionOwner: string;
  /** PostgreSQL 16+: GRANT … WITH INHERIT/SET. */
  let grantOptions: boolean;
  const created: string[] = [];
  const log: string[] = [];

  const start = (role: string): Promise<string> =>
    prepareDatabase(db.url, { appUrl: withCredentials(db.url, role, PASSWORD), password: 'unused: DATABASE_APP_URL is set' }, (line) =>
      log.push(line),
    );

  /** What start-up refuses `role` with (it must refuse). */
  const refusalOf = (role: string): Promise<string> =>
    start(role).then(
      () => 'accepted',
      (error: Error) => error.message,
    );

  /** A login role with the run's test password, then `grants` (run as the superuser, server-wide). */
  async function loginRole(what: string, ...grants: string[]): Promise<string> {
    return role(what, `login password '${PASSWORD}'`, ...grants);
  }

  /** A role made with `options`, then `grants` ($role is its name). */
  async function role(what: string, options: string, ...grants: string[]): Promise<string> {
    const name = roleName(what);
    await withAdminClient(async (admin) => {
      await admin.query(`create role ${name} ${options}`);
      created.push(name);
      for (const grant of grants) await admin.query(grant.replaceAll('$role', name));
    });
    return name;
  }

  /** A grant of `granted` that lets the grantee SET ROLE to it and nothing more (PostgreSQL 16+; on 15, any grant). */
  const setOnly = (granted: string): string =>
    grantOptions ? `grant ${granted} to $role with inherit false, set true` : `grant ${granted} to $role`;

  beforeAll(async () => {
    db = await createTestDatabase();
    grantOptions = await withAdminClient(
      async (admin) => Number((await admin.query<{ v: string }>('show server_version_num')).rows[0].v) >= 160000,
    );
    functionOwner = await role('fn_owner', 'nologin');
    // Giving an object to another role is a superuser's arrangement (the owner may not SET ROLE to it).
    const client = new Client({ connectionString: db.superUrl });
    await client.connect();
    try {
      owner = (await client.query<{ owner: string }>(`select tableowner as owner from pg_tables where tablename = 'teams'`)).rows[0].owner;
      await client.query(`alter function rl_team() owner to ${functionOwner}`);
    } finally {
      await client.end();
    }
  });

  afterAll(async () => {
    await db?.drop(); // first: a role that owns something in it could not be dropped
    await withAdminClient(async (admin) => {
      for (const role of created.reverse()) await admin.query(`drop role if exists ${role}`);
    });
  });

  it('R-TN-8 a role granted only recall_ledger_app is accepted: its URL is the one request-time work connects with', async () => {
    const clean = await loginRole('clean', `grant ${REQUEST_ROLE} to $role`);

    await expect(start(clean)).resolves.toBe(withCredentials(db.url, clean, PASSWORD));
    expect(log).toEqual([]); // nothing to migrate on the clone of the migrated template
  });

  it('R-TN-8 a member of the tables’ owner is refused, in one line naming the owner and the grant to revoke', async () => {
    const member = await loginRole('member', `grant ${REQUEST_ROLE} to $role`, `grant "${owner}" to $role`);

    const refused = await refusalOf(member);
    // What else the owner can do depends on the server (the run's superuser, or TEST_DATABASE_URL's role).
    expect(refused).toMatch(
      new RegExp(`^The request-time database role "${member}" can reach "${owner}" \\([^)]*an owner here\\) through membership`),
    );
    expect(refused).toContain(`: REVOKE "${owner}" FROM "${member}" (see docs/configuration.md: DATABASE_APP_URL).`);
    expect(refused.split('\n')).toHaveLength(1);
  });

  it('R-TN-8 a member of a role that owns only a function is refused, and so are one that can only SET ROLE to it and one that reaches it through another role', async () => {
    const member = await loginRole('fn_member', `grant ${REQUEST_ROLE} to $role`, `grant ${functionOwner} to $role`);
    const setOnlyMember = await loginRole('set_only', `grant ${REQUEST_ROLE} to $role`, setOnly(functionOwner));
    const group = await role('group', 'nologin', `grant ${functionOwner} to $role`);
    const indirect = await loginRole('indirect', `grant ${REQUEST_ROLE} to $role`, `grant ${group} to $role`);

    for (const [refused, through] of [
      [member, functionOwner],
      [setOnlyMember, functionOwner],
      [indirect, group],
    ]) {
      expect(await refusalOf(refused)).toBe(
        refusal(refused, reaches(`"${functionOwner}" (an owner here)`, `"${through}"`), `REVOKE "${through}" FROM "${refused}"`),
      );
    }
  });

  it('R-TN-8 a role that owns a sequence itself, BYPASSRLS, and a role that is not a member of recall_ledger_app, are refused', async () => {
    const sequenceOwner = await loginRole('seq_owner', `grant ${REQUEST_ROLE} to $role`);
    const bypass = await loginRole('bypass', `grant ${REQUEST_ROLE} to $role`, `alter role $role bypassrls`);
    const outsider = await loginRole('outsider');
    const client = new Client({ connectionString: db.superUrl });
    await client.connect();
    try {
      await client.query(`create sequence planted_sequence; alter sequence planted_sequence owner to ${sequenceOwner}`);
    } finally {
      await client.end();
    }

    expect(await refusalOf(sequenceOwner)).toBe(
      refusal(
        sequenceOwner,
        'owns tables, functions or schemas here',
        `REASSIGN OWNED BY "${sequenceOwner}" TO <the role of DATABASE_URL>`,
      ),
    );
    expect(await refusalOf(bypass)).toBe(refusal(bypass, 'has BYPASSRLS', `ALTER ROLE "${bypass}" NOBYPASSRLS`));
    expect(await refusalOf(outsider)).toBe(
      refusal(outsider, `is not a member of ${REQUEST_ROLE}`, `GRANT ${REQUEST_ROLE} TO "${outsider}"`),
    );
  });

  it('R-TN-11 a role that can SET ROLE to a superuser is refused, naming it: by a grant WITH INHERIT FALSE, SET TRUE, and by one WITH ADMIN but neither', async () => {
    const superuser = await role('superuser', 'superuser nologin');
    const setOnlyMember = await loginRole('set_super', `grant ${REQUEST_ROLE} to $role`, setOnly(superuser));
    // Any membership counts (PostgreSQL 16+): with neither option but ADMIN, the role can grant itself SET.
    const bare = grantOptions
      ? [
          await loginRole(
            'bare_super',
            `grant ${REQUEST_ROLE} to $role`,
            `grant ${superuser} to $role with admin true, inherit false, set false`,
          ),
        ]
      : [];

    for (const refused of [setOnlyMember, ...bare]) {
      expect(await refusalOf(refused)).toBe(
        refusal(refused, reaches(`"${superuser}" (SUPERUSER)`, `"${superuser}"`), `REVOKE "${superuser}" FROM "${refused}"`),
      );
    }
  });

  it('R-TN-11 a role that reaches a BYPASSRLS role through an intermediate role is refused, naming the role reached and the grant to revoke', async () => {
    const bypass = await role('bypass_group', 'nologin bypassrls');
    const intermediate = await role('intermediate', 'nologin', `grant ${bypass} to $role`);
    const member = await loginRole('via_intermediate', `grant ${REQUEST_ROLE} to $role`, `grant ${intermediate} to $role`);

    expect(await refusalOf(member)).toBe(
      refusal(member, reaches(`"${bypass}" (BYPASSRLS)`, `"${intermediate}"`), `REVOKE "${intermediate}" FROM "${member}"`),
    );
  });

  it('R-TN-11 a role with CREATEROLE is refused, and so is one that can SET ROLE to a CREATEROLE role', async () => {
    const createRole = await loginRole('createrole', `grant ${REQUEST_ROLE} to $role`, 'alter role $role createrole');
    const roleMaker = await role('role_maker', 'nologin createrole');
    const member = await loginRole('set_createrole', `grant ${REQUEST_ROLE} to $role`, setOnly(roleMaker));

    expect(await refusalOf(createRole)).toBe(refusal(createRole, 'has CREATEROLE', `ALTER ROLE "${createRole}" NOCREATEROLE`));
    expect(await refusalOf(member)).toBe(
      refusal(member, reaches(`"${roleMaker}" (CREATEROLE)`, `"${roleMaker}"`), `REVOKE "${roleMaker}" FROM "${member}"`),
    );
  });

  it('R-TN-11 a role that reaches REPLICATION or pg_read_server_files is refused, each named with the grant it comes by', async () => {
    const replication = await role('replication', 'nologin replication');
    const files = await role('files', 'nologin', 'grant pg_read_server_files to $role');
    const member = await loginRole(
      'reads_around',
      `grant ${REQUEST_ROLE} to $role`,
      `grant ${replication} to $role`,
      `grant ${files} to $role`,
    );

    expect(await refusalOf(member)).toBe(
      refusal(
        member,
        reaches(`"pg_read_server_files" (reads the server's files) and "${replication}" (REPLICATION)`, `"${files}" and "${replication}"`),
        `REVOKE "${files}", "${replication}" FROM "${member}"`,
      ),
    );
  });

  it('R-TN-11 a superuser request role is refused for that alone, though as a superuser it reaches every owner too', async () => {
    const superuser = await loginRole('super_app', `grant ${REQUEST_ROLE} to $role`, 'alter role $role superuser');

    expect(await refusalOf(superuser)).toBe(refusal(superuser, 'has SUPERUSER', `ALTER ROLE "${superuser}" NOSUPERUSER`));
  });
});
