import { Migration } from '@mikro-orm/migrations';

/** The group role request-time work runs as (created by Migration20261201181000). */
const APP_ROLE = 'recall_ledger_app';

/**
 * Team-defined summary rules (R-RC-3): one JSON document per (team, tool), which replaces the
 * built-in rules for that tool when the team's results are written. A tenant table like
 * `recall_events` (R-TN-8): row-level security enabled and forced, the team's rows for the request
 * role, every row for the owner; the team's deletion takes its documents with it.
 *
 * `tool_summary_rules_of` is the write path's read: it makes the team setting itself from its
 * argument, as `record_tool_results` does, so reading a batch's documents costs one round trip.
 */
export class Migration20261201190000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "tool_summary_rules" ("team_id" uuid not null, "tool_name" text not null, "rule" jsonb not null, "version" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "tool_summary_rules_pkey" primary key ("team_id", "tool_name"));`,
    );
    this.addSql(
      `alter table "tool_summary_rules" add constraint "tool_summary_rules_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`grant select, insert, update, delete on tool_summary_rules to ${APP_ROLE};`);
    this.addSql(`alter table tool_summary_rules enable row level security, force row level security;`);
    this.addSql(
      `create policy tenant_rows on tool_summary_rules to ${APP_ROLE} using (team_id = rl_team()) with check (team_id = rl_team());`,
    );
    this.addSql(`
do $do$ begin
  execute format('create policy owner_rows on %I to %I using (true) with check (true)', 'tool_summary_rules', current_user);
end $do$;`);

    this.addSql(`
create function tool_summary_rules_of(p_team uuid, p_tools text[]) returns table (tool_name text, rule jsonb)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  perform set_config('app.team_id', p_team::text, true);
  return query
    select r.tool_name, r.rule from tool_summary_rules r where r.team_id = p_team and r.tool_name = any(p_tools);
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists tool_summary_rules_of(uuid, text[]);');
    this.addSql(`drop table if exists "tool_summary_rules" cascade;`);
  }
}
