import type { Client } from 'pg';
import { REQUEST_ROLE } from '../../../src/database/request-role';
import { EXEMPT_MARKER, type ExplainedStatement, type PlanNode } from './plan-audit';

/**
 * A small schema shaped like the team-keyed one (issue 36): keys led by team_id, foreign keys
 * between tenant tables on (team_id, …), row-level security on `team_id = (select rl_team())`
 * for the request role (and, forced, every row for its owner, as the migrations give theirs), and a global table. It lives in its own schema, so the audit's specs do
 * not depend on the migrations of the day; a few rows per team and ANALYZE give the planner the
 * choices it makes on real data (index, bitmap and sequential scans, hash and nested-loop joins).
 */
const SCRATCH_SCHEMA = 'audit_scratch';

export const SCRATCH_TENANT_TABLES = {
  teams: 'id',
  users: 'team_id',
  spaces: 'team_id',
  conversations: 'team_id',
  messages: 'team_id',
  /** Keyed by id alone, as tables were before issue 36. */
  notes: 'team_id',
} as const;

export async function createScratchSchema(owner: Client): Promise<void> {
  await owner.query(`
    create schema ${SCRATCH_SCHEMA};
    set search_path = ${SCRATCH_SCHEMA};
    create function rl_team() returns uuid language sql stable
      as $$ select nullif(current_setting('app.team_id', true), '')::uuid $$;
    create table teams (id uuid primary key, name text);
    create table users (team_id uuid not null references teams, id uuid not null, sub text, primary key (team_id, id));
    create table spaces (team_id uuid not null references teams, id uuid not null, name text, generation int,
      primary key (team_id, id));
    create table conversations (team_id uuid not null, id uuid not null, user_id uuid not null, space_id uuid,
      primary key (team_id, id),
      foreign key (team_id, user_id) references users (team_id, id),
      foreign key (team_id, space_id) references spaces (team_id, id));
    create table messages (team_id uuid not null, id uuid not null, conversation_id uuid not null, user_id uuid,
      created_at timestamptz not null default now(), primary key (team_id, id),
      foreign key (team_id, conversation_id) references conversations (team_id, id) on delete cascade);
    create table notes (team_id uuid not null references teams, id uuid primary key, body text);
    create table feature_flags (key text primary key, enabled boolean not null);
    insert into teams select gen_random_uuid(), 't' from generate_series(1, 50);
    insert into users select t.id, gen_random_uuid(), 's' from teams t, generate_series(1, 20);
    insert into spaces select t.id, gen_random_uuid(), 'n', 1 from teams t, generate_series(1, 5);
    insert into conversations select u.team_id, gen_random_uuid(), u.id, null from users u, generate_series(1, 5);
    insert into messages select c.team_id, gen_random_uuid(), c.id, c.user_id, now() from conversations c, generate_series(1, 4);
    insert into notes select t.id, gen_random_uuid(), 'n' from teams t, generate_series(1, 20);
    insert into feature_flags values ('a', true), ('b', false);
    analyze;
    create policy tenant_rows on teams to ${REQUEST_ROLE} using (id = (select rl_team()));
    create policy owner_rows on teams to current_user using (true) with check (true);
    alter table teams enable row level security;
    alter table teams force row level security;
    ${['users', 'spaces', 'conversations', 'messages', 'notes']
      .map(
        (table) => `
    create policy tenant_rows on ${table} to ${REQUEST_ROLE} using (team_id = (select rl_team()));
    create policy owner_rows on ${table} to current_user using (true) with check (true);
    alter table ${table} enable row level security;
    alter table ${table} force row level security;`,
      )
      .join('')}
    grant usage on schema ${SCRATCH_SCHEMA} to ${REQUEST_ROLE};
    grant select, insert, update, delete on all tables in schema ${SCRATCH_SCHEMA} to ${REQUEST_ROLE};
    grant execute on all functions in schema ${SCRATCH_SCHEMA} to ${REQUEST_ROLE};
    reset search_path;
  `);
}

/** A team's id that exists in the scratch schema. */
export async function scratchTeam(owner: Client): Promise<string> {
  const { rows } = await owner.query<{ id: string }>(`select id from ${SCRATCH_SCHEMA}.teams order by id limit 1`);
  return rows[0].id;
}

export interface ExplainOptions {
  /** `set local …` first (e.g. `enable_hashjoin = off`, to get another join method). */
  settings?: string[];
  /** As the owner, whom row-level security does not restrict: the plan shows only the statement's own conditions. */
  asOwner?: boolean;
}

/**
 * The plan the request role gets for `sql` (row-level security applies, under `teamId`), as
 * auto_explain would log it: a generic plan (`$1`, …) unless `sql` has no parameters.
 */
export async function explainInScratch(
  as: { owner: Client; request: Client },
  teamId: string,
  sql: string,
  options: ExplainOptions = {},
): Promise<ExplainedStatement> {
  // The request role's plans on its own connection: the owner may not SET ROLE to it (no superuser).
  const client = options.asOwner ? as.owner : as.request;
  await client.query('begin');
  try {
    await client.query(`set local search_path = ${SCRATCH_SCHEMA}`);
    await client.query(`select set_config('app.team_id', $1, true)`, [teamId]);
    for (const setting of options.settings ?? []) await client.query(`set local ${setting}`);
    const explain = /\$\d/.test(sql) ? 'format json, generic_plan' : 'format json';
    // Marked: the run's own audit logs these plans too, and the failing cases fail on purpose.
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `/* ${EXEMPT_MARKER}: the analyzer's scratch-schema cases */ explain (${explain}) ${sql}`,
    );
    return { 'Query Text': sql, Plan: rows[0]['QUERY PLAN'][0].Plan };
  } finally {
    await client.query('rollback');
  }
}
