import { type RoleFacts, requestRoleRefusal } from '../request-role-check';

const GROUP = 'recall_ledger_app';
const clean: RoleFacts = {
  role: 'rl_app',
  superuser: false,
  bypassRls: false,
  createRole: false,
  replication: false,
  ownsObjects: false,
  reachable: [],
  grantedThrough: [],
  member: true,
};

/** The refusal's fixed middle, between the problems and the statements that fix them. */
const NEEDS =
  'row-level security needs a login role that owns nothing here, has none of SUPERUSER, BYPASSRLS, CREATEROLE and REPLICATION, ' +
  "reaches no role that has one, owns something here or reads the server's files through any membership, and is granted recall_ledger_app";

describe('requestRoleRefusal (R-TN-11: the request role reaches nothing that gets round row-level security)', () => {
  it('R-TN-11 accepts a member of the group that has no attribute, owns nothing and reaches no role with a power', () => {
    expect(requestRoleRefusal(clean, GROUP)).toBeUndefined();
  });

  it('R-TN-11 names each role reached with what it can do, the grants it is reached through, and the REVOKE that fixes it', () => {
    const facts: RoleFacts = {
      ...clean,
      reachable: [
        { name: 'admins', powers: ['SUPERUSER', 'BYPASSRLS', 'CREATEROLE', 'REPLICATION', 'owner'] },
        { name: 'auditor', powers: ['BYPASSRLS'] },
        { name: 'pg_read_server_files', powers: ['server files'] },
      ],
      grantedThrough: ['ops', 'pg_read_server_files'],
    };
    expect(requestRoleRefusal(facts, GROUP)).toBe(
      'The request-time database role "rl_app" can reach "admins" (SUPERUSER and an owner here), "auditor" (BYPASSRLS) and ' +
        `"pg_read_server_files" (reads the server's files) through membership (directly, through another role or by SET ROLE) ` +
        `by its grant of "ops" and "pg_read_server_files"; ${NEEDS}: REVOKE "ops", "pg_read_server_files" FROM "rl_app" ` +
        '(see docs/configuration.md: DATABASE_APP_URL).',
    );
  });

  it('R-TN-11 lists every problem with its fix, in one line, quoting names as SQL identifiers', () => {
    const facts: RoleFacts = {
      ...clean,
      role: 'odd "name"',
      bypassRls: true,
      createRole: true,
      replication: true,
      ownsObjects: true,
      reachable: [{ name: 'owner role', powers: ['owner'] }],
      grantedThrough: ['owner role'],
      member: false,
    };
    const refusal = requestRoleRefusal(facts, GROUP) ?? '';
    expect(refusal).toContain(
      'The request-time database role "odd ""name""" has BYPASSRLS, CREATEROLE and REPLICATION, owns tables, functions or schemas here, ' +
        'can reach "owner role" (an owner here) through membership',
    );
    expect(refusal).toContain(', is not a member of recall_ledger_app; ');
    expect(refusal).toContain(
      ': ALTER ROLE "odd ""name""" NOBYPASSRLS NOCREATEROLE NOREPLICATION; REASSIGN OWNED BY "odd ""name""" TO <the role of DATABASE_URL>; ' +
        'REVOKE "owner role" FROM "odd ""name"""; GRANT recall_ledger_app TO "odd ""name""" (see',
    );
    expect(refusal.split('\n')).toHaveLength(1);
  });

  it('R-TN-11 a superuser request role is refused for that alone: as a member of every role, what it reaches says nothing more', () => {
    const facts: RoleFacts = {
      ...clean,
      superuser: true,
      bypassRls: true,
      reachable: [{ name: 'owner', powers: ['owner'] }],
      grantedThrough: ['owner'],
    };
    expect(requestRoleRefusal(facts, GROUP)).toBe(
      `The request-time database role "rl_app" has SUPERUSER and BYPASSRLS; ${NEEDS}: ALTER ROLE "rl_app" NOSUPERUSER NOBYPASSRLS ` +
        '(see docs/configuration.md: DATABASE_APP_URL).',
    );
  });
});
