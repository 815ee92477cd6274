import { Migration } from '@mikro-orm/migrations';

/** The group role request-time work runs as (directly, or through a login role that is its member). */
const APP_ROLE = 'recall_ledger_app';

/** A user's row of a table with `user_id`: with the user set, that user's (a user has one team); team-wide, a user of the team. */
const userRow = (table: string): string =>
  `case when rl_user() is null then exists (select 1 from users u where u.id = ${table}.user_id and u.team_id = rl_team())
        else ${table}.user_id = rl_user() end`;

/** Tenant tables and who may see a row of each: `rl_team()`/`rl_user()` read the transaction's settings. */
const TENANT_POLICIES: Record<string, string> = {
  teams: 'id = rl_team()',
  users: 'team_id = rl_team()',
  spaces: 'team_id = rl_team()',
  // By the member's team (a space created in the same statement as its first member is not yet
  // visible to a subquery); the user's own membership without a lookup.
  space_members: `(rl_user() is not null and user_id = rl_user()) or exists (select 1 from users u where u.id = space_members.user_id and u.team_id = rl_team())`,
  conversations: userRow('conversations'),
  messages: userRow('messages'),
  // Team only: a user's snapshot is read through its conversation (user-checked above), and a
  // user clause here (an OR the planner cannot estimate) would cost the top-K read its index plan.
  message_tool_results: 'team_id = rl_team()',
  recall_events: 'team_id = rl_team()',
  feedback_events: 'team_id = rl_team()',
};

/**
 * Row-level security (R-TN-8): defense in depth under the repositories' own tenant predicates.
 *
 * Two identities. The migrating role (DATABASE_URL) owns the tables and the maintenance functions
 * and keeps a policy that lets it see every row (FORCE puts the owner under the policies too, so
 * that one is explicit). Request-time work runs as `recall_ledger_app`, which owns nothing and has
 * neither SUPERUSER nor BYPASSRLS: it sees the rows of the team in `app.team_id` and, where a row
 * belongs to a user and `app.user_id` is set, of that user only. Both settings are
 * transaction-local (`set_config(…, true)`), made by the app at the start of each transaction or
 * inside the one-statement functions; unset, nothing is visible. Feature flags' global default
 * rows (team_id null) are readable by every team and writable by none.
 */
export class Migration20261201181000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
do $do$ begin
  if not exists (select from pg_roles where rolname = '${APP_ROLE}') then
    create role ${APP_ROLE} nologin nosuperuser nobypassrls nocreatedb nocreaterole;
  end if;
end $do$;`);
    this.addSql(`grant usage on schema public to ${APP_ROLE};`);
    this.addSql(
      `grant select, insert, update, delete on ${[...Object.keys(TENANT_POLICIES), 'feature_flags', 'retention_leases'].join(', ')} to ${APP_ROLE};`,
    );
    this.addSql(`alter default privileges in schema public grant select, insert, update, delete on tables to ${APP_ROLE};`);

    this.addSql(
      `create function rl_team() returns uuid language sql stable as $fn$ select nullif(current_setting('app.team_id', true), '')::uuid $fn$;`,
    );
    this.addSql(
      `create function rl_user() returns uuid language sql stable as $fn$ select nullif(current_setting('app.user_id', true), '')::uuid $fn$;`,
    );

    for (const [table, visible] of Object.entries(TENANT_POLICIES)) {
      this.addSql(`alter table ${table} enable row level security, force row level security;`);
      this.addSql(`create policy tenant_rows on ${table} to ${APP_ROLE} using (${visible}) with check (${visible});`);
    }
    this.addSql(`alter table feature_flags enable row level security, force row level security;`);
    this.addSql(
      `create policy tenant_rows on feature_flags to ${APP_ROLE} using (team_id is null or team_id = rl_team()) with check (team_id = rl_team());`,
    );
    this.addSql(`
do $do$ declare t text; begin
  foreach t in array array[${[...Object.keys(TENANT_POLICIES), 'feature_flags'].map((t) => `'${t}'`).join(', ')}] loop
    execute format('create policy owner_rows on %I to %I using (true) with check (true)', t, current_user);
  end loop;
end $do$;`);

    // A user and a conversation each have one team: told so, the planner does not take the policy's
    // team clause for a further filter on a user's or a conversation's rows (an underestimate that
    // trades the top-K and history index reads for nested loops and sorts).
    this.addSql(
      'create statistics if not exists message_tool_results_tenant_dependency (dependencies) on conversation_id, user_id, team_id from message_tool_results;',
    );
    this.addSql('analyze message_tool_results;');

    // The scheduler's sweep walks every team, each under its own settings: the list of teams is the one
    // read that crosses tenants, so it is a maintenance function of the owner's.
    this.addSql(`
create function tenancy_team_ids() returns setof uuid
language sql stable security definer set search_path = public, pg_temp as $fn$ select id from teams order by id $fn$;`);
    this.addSql('revoke all on function tenancy_team_ids() from public;');
    this.addSql(`grant execute on function tenancy_team_ids() to ${APP_ROLE};`);

    // The guard's one statement makes the request's settings itself, from the token's team and user.
    this.addSql('drop function if exists actor_spaces(uuid);');
    this.addSql(`
create function actor_spaces(p_user uuid, p_team uuid) returns table (team_id uuid, space_id uuid, generation int)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  perform set_config('app.team_id', p_team::text, true), set_config('app.user_id', p_user::text, true);
  return query
    select u.team_id, s.id, s.generation
      from users u
      left join space_members m on m.user_id = u.id
      left join spaces s on s.id = m.space_id and s.team_id = u.team_id and s.status = 'ACTIVE'
     where u.id = p_user
     order by s.id;
end
$fn$;`);
    this.addSql('alter function actor_spaces(uuid, uuid) set plan_cache_mode = force_generic_plan;');
  }

  override async down(): Promise<void> {
    for (const table of [...Object.keys(TENANT_POLICIES), 'feature_flags']) {
      this.addSql(`drop policy if exists tenant_rows on ${table};`);
      this.addSql(`drop policy if exists owner_rows on ${table};`);
      this.addSql(`alter table ${table} no force row level security, disable row level security;`);
    }
    this.addSql('drop function if exists actor_spaces(uuid, uuid);');
    this.addSql('drop function if exists tenancy_team_ids();');
    this.addSql('drop statistics if exists message_tool_results_tenant_dependency;');
    this.addSql(`
create function actor_spaces(p_user uuid) returns table (team_id uuid, space_id uuid, generation int)
language plpgsql stable as $fn$
#variable_conflict use_column
begin
  return query
    select u.team_id, s.id, s.generation
      from users u
      left join space_members m on m.user_id = u.id
      left join spaces s on s.id = m.space_id and s.team_id = u.team_id and s.status = 'ACTIVE'
     where u.id = p_user
     order by s.id;
end
$fn$;`);
    this.addSql('alter function actor_spaces(uuid) set plan_cache_mode = force_generic_plan;');
    this.addSql('drop function if exists rl_team();');
    this.addSql('drop function if exists rl_user();');
    this.addSql(`alter default privileges in schema public revoke select, insert, update, delete on tables from ${APP_ROLE};`);
    this.addSql(`revoke all on all tables in schema public from ${APP_ROLE};`);
    this.addSql(`revoke usage on schema public from ${APP_ROLE};`);
  }
}
