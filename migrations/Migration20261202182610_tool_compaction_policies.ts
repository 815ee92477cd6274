import { Migration } from '@mikro-orm/migrations';

/** The group role request-time work runs as (created by Migration20261201181000). */
const APP_ROLE = 'recall_ledger_app';
const TEAM = '(select rl_team())';

/**
 * Team compaction policies (R-LG-4): one row per (team, tool) with the settings `compactMessages`
 * uses where a request says nothing. A tenant table like `tool_summary_rules` (R-TN-8): row-level
 * security enabled and forced, the team's rows for the request role, every row for the owner; the
 * team's deletion takes its policies with it.
 *
 * `tool_compaction_policies_of` is compaction's read: it makes the team setting itself from its
 * argument, as `tool_summary_rules_of` does, so reading a team's policies costs one round trip.
 */
export class Migration20261202182610_tool_compaction_policies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "tool_compaction_policies" ("team_id" uuid not null, "tool_name" varchar(128) not null,
      "never_compact" boolean not null, "keep_last_n" int null, "size_threshold" int null, "clear_inputs" boolean not null,
      "version" int not null, "updated_at" timestamptz not null default now(),
      constraint "tool_compaction_policies_pkey" primary key ("team_id", "tool_name"));`);
    this.addSql(`alter table "tool_compaction_policies" add constraint "tool_compaction_policies_team_id_foreign" foreign key ("team_id")
      references "teams" ("id") on update no action on delete cascade;`);

    this.addSql('alter table tool_compaction_policies enable row level security, force row level security;');
    this.addSql(`grant select, insert, update, delete on tool_compaction_policies to ${APP_ROLE};`);
    this.addSql(
      `create policy tenant_rows on tool_compaction_policies to ${APP_ROLE} using (team_id = ${TEAM}) with check (team_id = ${TEAM});`,
    );
    this.addSql(`do $do$ begin
  execute format('create policy owner_rows on tool_compaction_policies to %I using (true) with check (true)', current_user);
end $do$;`);

    this.addSql(`
create function tool_compaction_policies_of(p_team uuid)
  returns table (tool_name varchar, never_compact boolean, keep_last_n int, size_threshold int, clear_inputs boolean)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, null);
  return query
    select p.tool_name, p.never_compact, p.keep_last_n, p.size_threshold, p.clear_inputs
      from tool_compaction_policies p where p.team_id = p_team;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists tool_compaction_policies_of(uuid);');
    this.addSql('drop table if exists "tool_compaction_policies" cascade;');
  }
}
