import type { Client } from 'pg';
import { REQUEST_ROLE } from '../../src/database/request-role';
import { ownerConnection } from '../support/test-database';

/**
 * R-TN-8 and issue 37: what the request role can reach is under row-level security, and nothing in
 * the catalog hands it more. Read from pg_catalog of the migrated schema, not from the migrations:
 * a grant, a default privilege or a function added by hand or by a later migration shows here.
 * Each check returns its violations, one line each, named by object.
 */

/** A schema of the database's own (alias n): not pg_catalog, pg_toast, a session's pg_temp_N, nor information_schema. */
const USER_SCHEMA = `n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'`;

/**
 * Tables the request role reaches without row-level security, and all it may do there. They hold no
 * tenant's rows (test/migrations/distribution-keys.medium-spec.ts keeps team_id out of them):
 */
const REFERENCE_TABLES: Record<string, string[]> = {
  // The global flag defaults (key, enabled, updated_at); a team's own values are team_feature_flags,
  // under its policy. Read-only: a request may not change every team's default.
  feature_flags: ['SELECT'],
  // One row per sweep lease (name, holder replica, expiry), taken and renewed by every replica
  // before any team is entered: it names no team, user or content.
  retention_leases: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
};

/** Privileges row-level security does not filter: TRUNCATE empties every team's rows, TRIGGER runs the role's code in others' writes, REFERENCES probes keys. */
const UNFILTERED_PRIVILEGES = ['TRUNCATE', 'TRIGGER', 'REFERENCES'];

/** (a) Every SECURITY DEFINER function pins search_path, with pg_temp last (unlisted, it is searched first for tables). */
async function securityDefinerViolations(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ fn: string; config: string[] | null }>(
    `select p.oid::regprocedure::text as fn, p.proconfig as config
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where p.prosecdef and ${USER_SCHEMA}`,
  );
  const violations: string[] = [];
  for (const { fn, config } of rows) {
    const setting = config?.find((entry) => entry.startsWith('search_path='));
    if (setting === undefined) {
      violations.push(`${fn}: SECURITY DEFINER without search_path`);
      continue;
    }
    const path = setting.slice('search_path='.length);
    const schemas = path.split(',').map((schema) => schema.trim().replace(/^"(.*)"$/, '$1'));
    if (schemas.at(-1) !== 'pg_temp') violations.push(`${fn}: SECURITY DEFINER with search_path ${path}, pg_temp not last`);
  }
  return violations.sort();
}

/** (b) The request role may create nothing: in no schema of the database (its own grant or PUBLIC's), nor schemas in the database. */
async function createViolations(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ schema: string }>(
    `select n.nspname as schema from pg_namespace n where has_schema_privilege($1, n.oid, 'CREATE')`,
    [REQUEST_ROLE],
  );
  const { rows: database } = await client.query<{ name: string; create: boolean }>(
    `select current_database() as name, has_database_privilege($1, current_database(), 'CREATE') as "create"`,
    [REQUEST_ROLE],
  );
  return [
    ...rows.map((r) => `schema ${r.schema}: ${REQUEST_ROLE} has CREATE`),
    ...(database[0].create ? [`database ${database[0].name}: ${REQUEST_ROLE} has CREATE`] : []),
  ].sort();
}

const OBJECT_KINDS: Record<string, string> = { r: 'tables', S: 'sequences', f: 'functions', T: 'types', n: 'schemas', L: 'large objects' };

/**
 * (c) No default privilege grants the request role anything: not by name, not through a role it is
 * a member of, and not through PUBLIC on tables, sequences or schemas (PUBLIC's EXECUTE on functions
 * and USAGE on types are PostgreSQL's own defaults and show in an entry that changes anything else).
 */
async function defaultPrivilegeViolations(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ owner: string; schema: string | null; kind: string; grantee: string; privileges: string }>(
    `select pg_get_userbyid(d.defaclrole) as owner, n.nspname as schema, d.defaclobjtype as kind,
            case when a.grantee = 0 then 'PUBLIC' else pg_get_userbyid(a.grantee) end as grantee,
            string_agg(a.privilege_type, ', ' order by a.privilege_type) as privileges
       from pg_default_acl d
       left join pg_namespace n on n.oid = d.defaclnamespace
       cross join lateral aclexplode(d.defaclacl) a
      where case when a.grantee = 0 then d.defaclobjtype in ('r', 'S', 'n') else pg_has_role($1, a.grantee, 'MEMBER') end
      group by 1, 2, 3, 4`,
    [REQUEST_ROLE],
  );
  return rows
    .map(
      (r) =>
        `default privileges of ${r.owner}${r.schema ? ` in schema ${r.schema}` : ''} on ${OBJECT_KINDS[r.kind] ?? r.kind}: ${r.privileges} to ${r.grantee}`,
    )
    .sort();
}

interface Reachable {
  name: string;
  kind: string;
  rls: boolean;
  forced: boolean;
  securityInvoker: boolean;
  privileges: string[];
}

/**
 * (d) Every table, view or other relation the request role can read or write (its own grant, a
 * role's it is a member of, or PUBLIC's; a column grant counts) has row-level security enabled and
 * forced, as every tenant table has; a view runs as the caller (security_invoker), so the policies
 * of the tables under it apply to the request role, not to the view's owner. Only REFERENCE_TABLES
 * go without, and only with the privileges listed there. No privilege that row-level security does
 * not filter, anywhere.
 */
async function rowSecurityViolations(client: Client): Promise<string[]> {
  const { rows } = await client.query<Reachable>(
    `select c.relname as name, c.relkind as kind, c.relrowsecurity as rls, c.relforcerowsecurity as forced,
            coalesce(c.reloptions && array['security_invoker=true', 'security_invoker=on'], false) as "securityInvoker",
            array(select p from unnest(array['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES']) p
                   where has_table_privilege($1, c.oid, p)
                      or (p in ('SELECT', 'INSERT', 'UPDATE', 'REFERENCES') and has_any_column_privilege($1, c.oid, p))) as privileges
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'f') and ${USER_SCHEMA}`,
    [REQUEST_ROLE],
  );
  const violations: string[] = [];
  for (const table of rows.filter((r) => r.privileges.length > 0)) {
    const unfiltered = table.privileges.filter((p) => UNFILTERED_PRIVILEGES.includes(p));
    if (unfiltered.length > 0)
      violations.push(`${table.name}: ${REQUEST_ROLE} has ${unfiltered.join(', ')}, which row-level security does not filter`);
    const allowed = REFERENCE_TABLES[table.name];
    if (allowed) {
      const beyond = table.privileges.filter((p) => !allowed.includes(p) && !UNFILTERED_PRIVILEGES.includes(p));
      if (beyond.length > 0) violations.push(`${table.name}: a reference table, but ${REQUEST_ROLE} has ${beyond.join(', ')} on it`);
      continue;
    }
    if (table.kind === 'v') {
      if (!table.securityInvoker)
        violations.push(`${table.name}: a view ${REQUEST_ROLE} can reach runs as its owner (no security_invoker)`);
    } else if (table.kind === 'm' || table.kind === 'f') {
      violations.push(
        `${table.name}: ${REQUEST_ROLE} can reach it, and row-level security cannot apply to a ${table.kind === 'm' ? 'materialized view' : 'foreign table'}`,
      );
    } else if (!table.rls) {
      violations.push(`${table.name}: ${REQUEST_ROLE} can reach it and row-level security is not enabled`);
    } else if (!table.forced) {
      violations.push(`${table.name}: ${REQUEST_ROLE} can reach it and row-level security is enabled but not forced`);
    }
  }
  return violations.sort();
}

interface Violations {
  securityDefinerViolations: string[];
  createViolations: string[];
  defaultPrivilegeViolations: string[];
  rowSecurityViolations: string[];
}

async function allViolations(client: Client): Promise<Violations> {
  return {
    securityDefinerViolations: await securityDefinerViolations(client),
    createViolations: await createViolations(client),
    defaultPrivilegeViolations: await defaultPrivilegeViolations(client),
    rowSecurityViolations: await rowSecurityViolations(client),
  };
}

const NONE: Violations = { securityDefinerViolations: [], createViolations: [], defaultPrivilegeViolations: [], rowSecurityViolations: [] };

describe('Catalog privileges of the request role (R-TN-8, issue 37)', () => {
  const conn = ownerConnection();

  it('R-TN-8 every SECURITY DEFINER function pins search_path; the request role can create nothing, has no default privilege, and reaches no table without forced row-level security but the reference tables', async () => {
    expect(await allViolations(conn.client)).toEqual(NONE);
  });

  it('R-TN-8 each check names what is planted: a table without row-level security, a view, TRUNCATE, a definer without search_path, CREATE, a default privilege', async () => {
    // The migrations' role (the owner), whose default privileges the plants below change.
    const owner = (await conn.client.query<{ owner: string }>('select current_user as owner')).rows[0].owner;
    await conn.client.query('begin');
    try {
      await conn.client.query(`
        create table planted_open (id int);
        grant select on planted_open to ${REQUEST_ROLE};
        create table planted_unforced (id int);
        alter table planted_unforced enable row level security;
        grant insert (id) on planted_unforced to ${REQUEST_ROLE};
        create table planted_public (id int);
        grant select on planted_public to public;
        create view planted_view as select id from teams;
        grant select on planted_view to ${REQUEST_ROLE};
        create view planted_invoker_view with (security_invoker = true) as select id from teams;
        grant select on planted_invoker_view to ${REQUEST_ROLE};
        grant truncate on teams to ${REQUEST_ROLE};
        grant insert on feature_flags to ${REQUEST_ROLE};
        create function planted_definer() returns int language sql security definer as 'select 1';
        create function planted_definer_temp_first() returns int language sql security definer set search_path = pg_temp, public as 'select 1';
        create function planted_definer_pinned() returns int language sql security definer set search_path = public, pg_temp as 'select 1';
        grant create on schema public to ${REQUEST_ROLE};
        create schema planted_schema;
        grant create on schema planted_schema to public;
        grant create on database "${conn.db.name}" to ${REQUEST_ROLE};
        alter default privileges in schema public grant select on tables to ${REQUEST_ROLE};
        alter default privileges grant usage on sequences to public;
      `);
      expect(await allViolations(conn.client)).toEqual({
        securityDefinerViolations: [
          'planted_definer(): SECURITY DEFINER without search_path',
          'planted_definer_temp_first(): SECURITY DEFINER with search_path pg_temp, public, pg_temp not last',
        ],
        createViolations: [
          `database ${conn.db.name}: ${REQUEST_ROLE} has CREATE`,
          `schema planted_schema: ${REQUEST_ROLE} has CREATE`,
          `schema public: ${REQUEST_ROLE} has CREATE`,
        ],
        defaultPrivilegeViolations: [
          `default privileges of ${owner} in schema public on tables: SELECT to ${REQUEST_ROLE}`,
          `default privileges of ${owner} on sequences: USAGE to PUBLIC`,
        ],
        rowSecurityViolations: [
          `feature_flags: a reference table, but ${REQUEST_ROLE} has INSERT on it`,
          `planted_open: ${REQUEST_ROLE} can reach it and row-level security is not enabled`,
          `planted_public: ${REQUEST_ROLE} can reach it and row-level security is not enabled`,
          `planted_unforced: ${REQUEST_ROLE} can reach it and row-level security is enabled but not forced`,
          `planted_view: a view ${REQUEST_ROLE} can reach runs as its owner (no security_invoker)`,
          `teams: ${REQUEST_ROLE} has TRUNCATE, which row-level security does not filter`,
        ],
      });
    } finally {
      await conn.client.query('rollback');
    }
    expect(await allViolations(conn.client)).toEqual(NONE);
  });
});
