import { Migration } from '@mikro-orm/migrations';

/**
 * Recall events (R-RC-9) and full-text search over snapshots (R-RC-8).
 *
 * The search document is kept by a trigger, so every write path gets it: tool name (weight A),
 * input (B) and output words, `simple` configuration. The output's part is stripped of
 * positions, which keeps a 2 MiB output's document small; a document still over PostgreSQL's
 * 1 MB tsvector limit (megabytes of distinct words) falls back to the output's first 500,000
 * characters instead of failing the write.
 */
export class Migration20261130010603 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists btree_gin;`);
    this.addSql(
      `create table "recall_events" ("team_id" uuid not null, "id" varchar(30) not null, "profile_id" uuid not null, "space_id" uuid not null, "space_generation" int not null, "query_fingerprint" varchar(64) null, "query_text" varchar(500) null, "contract_version" varchar(64) not null, "ranking_version" varchar(64) null, "fusion_mode" varchar(64) null, "search_freshness" varchar(64) null, "degraded_branches" jsonb not null default '[]', "results" jsonb not null, "semantic_groups" jsonb null, "authored_alternatives" jsonb null, "clarification_outcome" varchar(64) null, "source" varchar(16) not null, "created_at" timestamptz not null default now(), constraint "recall_events_pkey" primary key ("team_id", "id"));`,
    );
    this.addSql(`create index "recall_events_profile_recency" on "recall_events" ("profile_id", "created_at");`);
    this.addSql(`create index "recall_events_created_at_index" on "recall_events" ("created_at");`);
    this.addSql(
      `alter table "recall_events" add constraint "recall_events_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "recall_events" add constraint "recall_events_profile_id_foreign" foreign key ("profile_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "recall_events" add constraint "recall_events_space_id_foreign" foreign key ("space_id") references "spaces" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `insert into "feature_flags" ("id", "key", "team_id", "enabled") values (gen_random_uuid(), 'recall_query_text_enabled', null, false);`,
    );

    this.addSql(`alter table "message_tool_results" add column "search_vector" tsvector null;`);
    this.addSql(`create function "message_tool_results_search_document"(name text, input jsonb, output jsonb) returns tsvector
      language plpgsql immutable as $$
      declare
        head tsvector := setweight(to_tsvector('simple'::regconfig, name), 'A')
                      || setweight(jsonb_to_tsvector('simple'::regconfig, input, '["string", "numeric", "key"]'), 'B');
      begin
        return head || strip(jsonb_to_tsvector('simple'::regconfig, output, '["string", "numeric", "key"]'));
      exception when program_limit_exceeded then
        return head || strip(to_tsvector('simple'::regconfig, left(output::text, 500000)));
      end $$;`);
    this.addSql(`create function "message_tool_results_search_trigger"() returns trigger language plpgsql as $$
      begin
        new.search_vector := message_tool_results_search_document(new.tool_name, new.tool_input, new.tool_output);
        return new;
      end $$;`);
    this
      .addSql(`create trigger "message_tool_results_search" before insert or update of "tool_name", "tool_input", "tool_output" on "message_tool_results"
      for each row execute function "message_tool_results_search_trigger"();`);
    this.addSql(
      `update "message_tool_results" set "search_vector" = message_tool_results_search_document("tool_name", "tool_input", "tool_output");`,
    );
    this.addSql(`create index "message_tool_results_user_search" on "message_tool_results" using gin ("user_id", "search_vector");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "recall_events" cascade;`);
    this.addSql(`delete from "feature_flags" where "key" = 'recall_query_text_enabled';`);
    this.addSql(`drop index "message_tool_results_user_search";`);
    this.addSql(`drop trigger "message_tool_results_search" on "message_tool_results";`);
    this.addSql(`drop function "message_tool_results_search_trigger"();`);
    this.addSql(`drop function "message_tool_results_search_document"(text, jsonb, jsonb);`);
    this.addSql(`alter table "message_tool_results" drop column "search_vector";`);
  }
}
