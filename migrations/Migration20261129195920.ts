import { Migration } from '@mikro-orm/migrations';

export class Migration20261129195920 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "conversations" ("id" uuid not null, "user_id" uuid not null, "space_id" uuid not null, "created_at" timestamptz not null default now(), constraint "conversations_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "conversations_user_id_index" on "conversations" ("user_id");`);
    this.addSql(`create index "conversations_space_id_index" on "conversations" ("space_id");`);

    this.addSql(
      `create table "messages" ("id" uuid not null, "conversation_id" uuid not null, "user_id" uuid not null, "role" varchar(32) not null default 'assistant', "created_at" timestamptz not null default now(), constraint "messages_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "messages_conversation_id_index" on "messages" ("conversation_id");`);
    this.addSql(`create index "messages_user_id_index" on "messages" ("user_id");`);

    this.addSql(
      `create table "message_tool_results" ("id" uuid not null, "user_id" uuid not null, "message_id" uuid not null, "conversation_id" uuid not null, "tool_name" varchar(128) not null, "tool_input" jsonb not null, "tool_output" jsonb not null, "created_at" timestamptz not null default now(), "tool_use_id" varchar(256) not null, "mem_id" varchar(20) not null, "size_chars" int not null, constraint "message_tool_results_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "message_tool_results_message_id_index" on "message_tool_results" ("message_id");`);
    this.addSql(`alter table "message_tool_results" add constraint "message_tool_results_mem_id_unique" unique ("mem_id");`);
    this.addSql(`create index "message_tool_results_created_at_index" on "message_tool_results" ("created_at");`);
    this.addSql(`create index "message_tool_results_user_recency" on "message_tool_results" ("user_id", "created_at" desc, "id" desc);`);
    this.addSql(
      `create index "message_tool_results_conversation_user_recency" on "message_tool_results" ("conversation_id", "user_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(`create index "ix_message_tool_results_conversation_recency" on "message_tool_results" ("conversation_id", "created_at");`);
    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_user_tool_use_unique" unique ("user_id", "tool_use_id");`,
    );

    this.addSql(
      `alter table "conversations" add constraint "conversations_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "conversations" add constraint "conversations_space_id_foreign" foreign key ("space_id") references "spaces" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "messages" add constraint "messages_conversation_id_foreign" foreign key ("conversation_id") references "conversations" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "messages" add constraint "messages_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_message_id_foreign" foreign key ("message_id") references "messages" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_conversation_id_foreign" foreign key ("conversation_id") references "conversations" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "messages" drop constraint "messages_conversation_id_foreign";`);

    this.addSql(`alter table "message_tool_results" drop constraint "message_tool_results_conversation_id_foreign";`);

    this.addSql(`alter table "message_tool_results" drop constraint "message_tool_results_message_id_foreign";`);

    this.addSql(`drop table if exists "conversations" cascade;`);

    this.addSql(`drop table if exists "messages" cascade;`);

    this.addSql(`drop table if exists "message_tool_results" cascade;`);
  }
}
