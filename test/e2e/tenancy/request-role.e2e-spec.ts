import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { prepareDatabase, REQUEST_ROLE, withCredentials } from '../../../src/database/request-role';
import { createTestDatabase, type TestDatabase, withAdminClient } from '../../support/test-database';

/**
 * R-TN-8, issue 37: start-up refuses a DATABASE_APP_URL whose role could get round row-level
 * security, in one line that says what to change. Real login roles on the run's server (unique
 * names, dropped afterwards), checked by the start-up path itself on a migrated database. Here the
 * tables' owner is the role that ran the migrations (the run's superuser, or TEST_DATABASE_URL's).
 */

const suffix = randomBytes(4).toString('hex');
const roleName = (what: string): string => `rl_t_${what}_${suffix}`;
const PASSWORD = randomBytes(18).toString('base64url');

/** The one line start-up refuses `role` with. */
const refusal = (role: string, problems: string): string =>
  `The request-time database role "${role}" ${problems}; row-level security needs a login role that owns nothing and is a member of ` +
  `no owner (revoke such grants), with neither SUPERUSER nor BYPASSRLS, granted ${REQUEST_ROLE} (see docs/configuration.md: DATABASE_APP_URL).`;

describe('Start-up refuses a request role that could get round row-level security (R-TN-8, real roles)', () => {
  let db: TestDatabase;
  let owner: string;
  const created: string[] = [];
  const log: string[] = [];

  const start = (role: string): Promise<string> =>
    prepareDatabase(db.url, { appUrl: withCredentials(db.url, role, PASSWORD), password: 'unused: DATABASE_APP_URL is set' }, (line) =>
      log.push(line),
    );

  /** A login role with the run's test password, then `grants` (run as the superuser, server-wide). */
  async function loginRole(what: string, ...grants: string[]): Promise<string> {
    const role = roleName(what);
    await withAdminClient(async (admin) => {
      await admin.query(`create role ${role} login password ${admin.escapeLiteral(PASSWORD)}`);
      created.push(role);
      for (const grant of grants) await admin.query(grant.replaceAll('$role', role));
    });
    return role;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      owner = (await client.query<{ owner: string }>(`select tableowner as owner from pg_tables where tablename = 'teams'`)).rows[0].owner;
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

  it('R-TN-8 a member of the tables’ owner is refused, in one line naming the owner', async () => {
    const member = await loginRole('member', `grant ${REQUEST_ROLE} to $role`, `grant "${owner}" to $role`);

    await expect(start(member)).rejects.toThrow(
      refusal(member, `is a member of the owner role(s) "${owner}" (directly, through another role or by SET ROLE)`),
    );
  });

  it('R-TN-8 a role that can only SET ROLE to the owner (inherit false) is refused, and so is a member through another role', async () => {
    const setOnly = await loginRole('set_only', `grant ${REQUEST_ROLE} to $role`, `grant "${owner}" to $role with inherit false, set true`);
    const group = await loginRole('group', `grant "${owner}" to $role`);
    const indirect = await loginRole('indirect', `grant ${REQUEST_ROLE} to $role`, `grant ${group} to $role`);

    for (const role of [setOnly, indirect]) {
      await expect(start(role)).rejects.toThrow(
        refusal(role, `is a member of the owner role(s) "${owner}" (directly, through another role or by SET ROLE)`),
      );
    }
  });

  it('R-TN-8 a member of a role that owns only a function of the database is refused too, and the refusal is one line', async () => {
    const functionOwner = await loginRole('fn_owner');
    const member = await loginRole('fn_member', `grant ${REQUEST_ROLE} to $role`, `grant ${functionOwner} to $role`);
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`alter function rl_team() owner to ${functionOwner}`);
    } finally {
      await client.end();
    }

    const refused = await start(member).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toBe(
      refusal(member, `is a member of the owner role(s) "${functionOwner}" (directly, through another role or by SET ROLE)`),
    );
    expect(refused?.split('\n')).toHaveLength(1);
  });

  it('R-TN-8 a role that owns a sequence itself, BYPASSRLS, and a role that is not a member of recall_ledger_app, are refused', async () => {
    const sequenceOwner = await loginRole('seq_owner', `grant ${REQUEST_ROLE} to $role`);
    const bypass = await loginRole('bypass', `grant ${REQUEST_ROLE} to $role`, `alter role $role bypassrls`);
    const outsider = await loginRole('outsider');
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`create sequence planted_sequence; alter sequence planted_sequence owner to ${sequenceOwner}`);
    } finally {
      await client.end();
    }

    await expect(start(sequenceOwner)).rejects.toThrow(refusal(sequenceOwner, 'owns tables, functions or schemas here'));
    await expect(start(bypass)).rejects.toThrow(refusal(bypass, 'has BYPASSRLS'));
    await expect(start(outsider)).rejects.toThrow(refusal(outsider, `is not a member of ${REQUEST_ROLE}`));
  });
});
