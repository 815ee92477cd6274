import { Migration } from '@mikro-orm/migrations';

/**
 * Feedback events (R-FB-7), keyed by (team_id, id) with the composite foreign key
 * (team_id, recall_event_id) → recall_events, so keys stay within the team (docs/requirements.md §10); and the
 * retention sweep's lease (R-RT-2) and the feedback comments' clearing mark (R-RT-3).
 */
export class Migration20261130011629 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "retention_leases" ("name" varchar(64) not null, "holder" varchar(64) not null, "expires_at" timestamptz not null, constraint "retention_leases_pkey" primary key ("name"));`,
    );

    this.addSql(
      `create table "feedback_events" ("team_id" uuid not null, "id" varchar(30) not null, "recall_event_id" varchar(30) not null, "profile_id" uuid not null, "actor_id" uuid not null, "space_id" uuid not null, "space_generation" int not null, "query_fingerprint" varchar(64) null, "contract_version" varchar(64) not null, "ranking_version" varchar(64) null, "fusion_mode" varchar(64) null, "search_freshness" varchar(64) null, "degraded_branches" jsonb not null, "returned_refs" jsonb not null, "used" boolean not null, "answer_supported" boolean null, "quality" varchar(8) null, "missing_context" boolean null, "irrelevant" boolean null, "feedback_comment" varchar(1000) null, "irrelevant_result_refs" jsonb not null, "hypothesis_feedback" jsonb not null, "client_feedback_id" varchar(128) null, "created_at" timestamptz not null default now(), "comments_cleared_at" timestamptz null, constraint "feedback_events_pkey" primary key ("team_id", "id"));`,
    );
    this.addSql(`create index "feedback_events_actor_id_index" on "feedback_events" ("actor_id");`);
    this.addSql(
      `create unique index "feedback_events_client_id_unique" on "feedback_events" ("team_id", "actor_id", "client_feedback_id") where "client_feedback_id" is not null;`,
    );
    this.addSql(`create index "feedback_events_comments_age" on "feedback_events" ("created_at") where "comments_cleared_at" is null;`);
    this.addSql(`create index "feedback_events_recall_event_index" on "feedback_events" ("team_id", "recall_event_id");`);
    this.addSql(`create index "feedback_events_created_at_index" on "feedback_events" ("created_at");`);
    this.addSql(`create index "feedback_events_team_recency" on "feedback_events" ("team_id", "created_at" desc, "id" desc);`);

    this.addSql(
      `alter table "feedback_events" add constraint "feedback_events_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "feedback_events" add constraint "feedback_events_team_id_recall_event_id_foreign" foreign key ("team_id", "recall_event_id") references "recall_events" ("team_id", "id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "feedback_events" add constraint "feedback_events_profile_id_foreign" foreign key ("profile_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "feedback_events" add constraint "feedback_events_actor_id_foreign" foreign key ("actor_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "feedback_events" add constraint "feedback_events_space_id_foreign" foreign key ("space_id") references "spaces" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "retention_leases" cascade;`);

    this.addSql(`drop table if exists "feedback_events" cascade;`);
  }
}
