import { Migration } from '@mikro-orm/migrations';

export class Migration20261129194856 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create type "space_status" as enum ('ACTIVE', 'SEALED', 'RETIRED');`);
    this.addSql(
      `create table "teams" ("id" uuid not null, "created_at" timestamptz not null default now(), constraint "teams_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "spaces" ("id" uuid not null, "team_id" uuid not null, "name" varchar(200) not null, "generation" int not null default 1, "status" "space_status" not null default 'ACTIVE', "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "spaces_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "spaces_team_id_index" on "spaces" ("team_id");`);

    this.addSql(
      `create table "feature_flags" ("id" uuid not null, "key" varchar(64) not null, "team_id" uuid null, "enabled" boolean not null, "updated_at" timestamptz not null default now(), constraint "feature_flags_pkey" primary key ("id"));`,
    );
    this.addSql(`create unique index "feature_flags_key_team_unique" on "feature_flags" ("key", "team_id") nulls not distinct;`);

    this.addSql(
      `create table "users" ("id" uuid not null, "team_id" uuid not null, "created_at" timestamptz not null default now(), constraint "users_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "users_team_id_index" on "users" ("team_id");`);

    this.addSql(
      `create table "space_members" ("space_id" uuid not null, "user_id" uuid not null, "created_at" timestamptz not null default now(), constraint "space_members_pkey" primary key ("space_id", "user_id"));`,
    );
    this.addSql(`create index "space_members_user_id_index" on "space_members" ("user_id");`);

    this.addSql(
      `alter table "spaces" add constraint "spaces_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "feature_flags" add constraint "feature_flags_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "users" add constraint "users_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "space_members" add constraint "space_members_space_id_foreign" foreign key ("space_id") references "spaces" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "space_members" add constraint "space_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    // The global default of every known flag (R-TN-7); teams override it with their own row.
    this.addSql(
      `insert into "feature_flags" ("id", "key", "team_id", "enabled") values (gen_random_uuid(), 'recall_feedback_enabled', null, false);`,
    );
  }
}
