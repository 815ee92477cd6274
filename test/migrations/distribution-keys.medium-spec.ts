import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * R-TN-9 and requirements.md §10: the schema is ready to be distributed by team (Citus). Read from
 * pg_catalog of the migrated schema, not from the migrations: what the database holds is what a
 * cluster would be given (docs/scaling.md, "Distribution (Citus) runbook").
 */

/**
 * The tables that hold no tenant's rows, and so no team_id. Every other table in schema public is
 * a tenant table, row-level security or not: a new table that forgot its policy is reported, not
 * skipped. On Citus these three are not distributed by team.
 */
const GLOBAL_TABLES = [
  'feature_flags', // the global flag defaults, read-only to the request role: a reference table
  'retention_leases', // one row per sweep lease, shared by every replica: stays local to the coordinator
  'mikro_orm_migrations', // the migrator's bookkeeping: stays local to the coordinator
];

/** The root tenant table: its key `id` is the team id itself. */
const ROOT_TABLE = 'teams';

/** The column a tenant table is distributed by. */
const teamColumn = (table: string): string => (table === ROOT_TABLE ? 'id' : 'team_id');

interface Table {
  name: string;
  rls: boolean;
  forced: boolean;
}

interface UniqueIndex {
  table: string;
  index: string;
  /** 'p' primary key, 'u' unique constraint, null a unique index with no constraint. */
  constraint: 'p' | 'u' | null;
  /** The key columns, in order (an expression shows as null); INCLUDE columns are not keys. */
  columns: (string | null)[];
}

interface ForeignKey {
  name: string;
  table: string;
  columns: string[];
  target: string;
  targetColumns: string[];
  /** pg_constraint's confupdtype and confdeltype: a no action, r restrict, c cascade, n set null, d set default. */
  onUpdate: string;
  onDelete: string;
}

const ACTIONS: Record<string, string> = { c: 'cascade', n: 'set null', d: 'set default' };

const list = (columns: (string | null)[]): string => `(${columns.map((c) => c ?? '<expression>').join(', ')})`;

/**
 * Every way the schema in `client`'s database breaks the distribution rules, one line each, named
 * by table and constraint. Empty when every tenant table:
 * - has row-level security enabled and forced (R-TN-8);
 * - has a primary key, and its team column in it and in every unique constraint and unique index,
 *   partial ones included (R-TN-9: Citus refuses a unique key without the distribution column);
 * - maps its team column to the target's team column, at the same position, in every foreign key
 *   to another tenant table (Citus's rule for foreign keys between co-located distributed tables);
 * - has no foreign key over its team column that updates on cascade, or sets null or a default on
 *   update or delete (Citus refuses those actions when the key includes the distribution column);
 * and no global table references a tenant table (a reference or local table cannot reference a
 * distributed one). A foreign key from a tenant table to a global one needs no team column.
 */
async function distributionViolations(client: Client): Promise<string[]> {
  const { rows: tables } = await client.query<Table>(
    `select c.relname as name, c.relrowsecurity as rls, c.relforcerowsecurity as forced
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname`,
  );
  const { rows: uniques } = await client.query<UniqueIndex>(
    `select t.relname as "table", ic.relname as index, con.contype as constraint,
            array(select a.attname::text
                    from unnest(i.indkey::int2[]) with ordinality k(attnum, position)
                    left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
                   where k.position <= i.indnkeyatts
                   order by k.position) as columns
       from pg_index i
       join pg_class t on t.oid = i.indrelid
       join pg_namespace n on n.oid = t.relnamespace
       join pg_class ic on ic.oid = i.indexrelid
       left join pg_constraint con on con.conindid = i.indexrelid and con.conrelid = i.indrelid and con.contype in ('p', 'u')
      where n.nspname = 'public' and i.indisunique
      order by t.relname, ic.relname`,
  );
  const { rows: foreignKeys } = await client.query<ForeignKey>(
    `select con.conname as name, t.relname as "table", f.relname as target,
            array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, position)
                    join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.position) as columns,
            array(select a.attname::text from unnest(con.confkey) with ordinality k(attnum, position)
                    join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.position) as "targetColumns",
            con.confupdtype as "onUpdate", con.confdeltype as "onDelete"
       from pg_constraint con
       join pg_class t on t.oid = con.conrelid
       join pg_namespace n on n.oid = t.relnamespace
       join pg_class f on f.oid = con.confrelid
      where n.nspname = 'public' and con.contype = 'f'
      order by t.relname, con.conname`,
  );

  const names = new Set(tables.map((t) => t.name));
  const isTenant = (table: string): boolean => names.has(table) && !GLOBAL_TABLES.includes(table);
  const violations: string[] = [];

  for (const table of GLOBAL_TABLES) {
    if (!names.has(table)) violations.push(`${table}: listed as a global table but does not exist`);
  }
  for (const table of tables.filter((t) => isTenant(t.name))) {
    if (!table.rls) violations.push(`${table.name}: row-level security is not enabled`);
    else if (!table.forced) violations.push(`${table.name}: row-level security is enabled but not forced`);
    if (!uniques.some((u) => u.table === table.name && u.constraint === 'p')) violations.push(`${table.name}: no primary key`);
  }
  for (const unique of uniques.filter((u) => isTenant(u.table))) {
    if (unique.columns.includes(teamColumn(unique.table))) continue;
    const kind = unique.constraint === 'p' ? 'primary key' : unique.constraint === 'u' ? 'unique constraint' : 'unique index';
    violations.push(`${unique.table}: ${kind} ${unique.index} ${list(unique.columns)} lacks ${teamColumn(unique.table)}`);
  }
  for (const fk of foreignKeys) {
    const described = `foreign key ${fk.name} ${list(fk.columns)} → ${fk.target} ${list(fk.targetColumns)}`;
    if (!isTenant(fk.table)) {
      if (isTenant(fk.target)) violations.push(`${fk.table}: ${described}: a global table references a tenant table`);
      continue;
    }
    const from = teamColumn(fk.table);
    if (isTenant(fk.target)) {
      const to = teamColumn(fk.target);
      if (!fk.columns.some((column, i) => column === from && fk.targetColumns[i] === to)) {
        violations.push(`${fk.table}: ${described} does not map ${from} → ${to}`);
      }
    }
    if (fk.columns.includes(from)) {
      if (['c', 'n', 'd'].includes(fk.onUpdate)) violations.push(`${fk.table}: ${described} has on update ${ACTIONS[fk.onUpdate]}`);
      if (['n', 'd'].includes(fk.onDelete)) violations.push(`${fk.table}: ${described} has on delete ${ACTIONS[fk.onDelete]}`);
    }
  }
  return violations.sort();
}

describe('Distribution keys (R-TN-9, requirements.md §10)', () => {
  let db: TestDatabase | undefined;
  let client: Client | undefined;

  /** A clone of the migrated template: reading the template itself would block every other file's clone of it. */
  async function connect(): Promise<Client> {
    db = await createTestDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
    return client;
  }

  afterEach(async () => {
    await client?.end();
    await db?.drop();
    client = undefined;
    db = undefined;
  });

  it('R-TN-9 R-TN-8 every tenant table has team_id in its primary key, its unique keys and its foreign keys to tenant tables (never updated on cascade), and forced row-level security', async () => {
    const violations = await distributionViolations(await connect());

    expect(violations).toEqual([]);
  });

  it('R-TN-9 R-TN-8 the check names each planted breach: a tenant table without team_id in its key, a foreign key without team_id, a cascade over team_id, row-level security left off, a global table referencing a tenant one', async () => {
    const c = await connect();
    const before = await distributionViolations(c);

    await c.query(`
      create table planted_notes (id uuid primary key, team_id uuid not null references teams (id), body text);
      alter table planted_notes enable row level security;
      alter table planted_notes force row level security;

      create table planted_replies (
        team_id uuid not null references teams (id),
        id uuid not null,
        note_id uuid not null references planted_notes (id),
        primary key (team_id, id)
      );
      create unique index planted_replies_note_unique on planted_replies (note_id) where note_id is not null;
      alter table planted_replies enable row level security;
      alter table planted_replies force row level security;

      create table planted_unforced (team_id uuid not null references teams (id), id uuid not null, primary key (team_id, id));
      alter table planted_unforced enable row level security;

      create table planted_open (team_id uuid not null references teams (id), id uuid not null, primary key (team_id, id));

      create table planted_cascading (team_id uuid not null references teams (id) on update cascade, id uuid not null, primary key (team_id, id));
      alter table planted_cascading enable row level security;
      alter table planted_cascading force row level security;

      create table planted_keyless (team_id uuid references teams (id) on delete set null, body text);
      alter table planted_keyless enable row level security;
      alter table planted_keyless force row level security;

      alter table retention_leases add column planted_team_id uuid references teams (id);
    `);
    const after = await distributionViolations(c);

    expect(after.filter((line) => !before.includes(line))).toEqual([
      'planted_cascading: foreign key planted_cascading_team_id_fkey (team_id) → teams (id) has on update cascade',
      'planted_keyless: foreign key planted_keyless_team_id_fkey (team_id) → teams (id) has on delete set null',
      'planted_keyless: no primary key',
      'planted_notes: primary key planted_notes_pkey (id) lacks team_id',
      'planted_open: row-level security is not enabled',
      'planted_replies: foreign key planted_replies_note_id_fkey (note_id) → planted_notes (id) does not map team_id → team_id',
      'planted_replies: unique index planted_replies_note_unique (note_id) lacks team_id',
      'planted_unforced: row-level security is enabled but not forced',
      'retention_leases: foreign key retention_leases_planted_team_id_fkey (planted_team_id) → teams (id): a global table references a tenant table',
    ]);
    expect(before.filter((line) => !after.includes(line))).toEqual([]);
  });
});
