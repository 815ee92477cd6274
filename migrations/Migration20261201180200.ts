import { Migration } from '@mikro-orm/migrations';

/**
 * Retention sweeps one team at a time (issue 20), each scan reading a team's rows oldest first:
 * the age indexes its scans need lead with the team, and replace the global ones only the
 * every-tenant sweep read. Feedback events' (team_id, created_at desc, id desc) recency index
 * already serves their deletion. Conversations are reached through the team's spaces: the
 * (space_id, created_at, id) index serves the idle-conversation scan and every space_id lookup
 * the old single-column index served.
 */
export class Migration20261201180200 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "recall_events_team_age" on "recall_events" ("team_id", "created_at", "id");`);
    this.addSql(`drop index "recall_events_created_at_index";`);
    this.addSql(
      `create index "feedback_events_team_comments_age" on "feedback_events" ("team_id", "created_at") where "comments_cleared_at" is null;`,
    );
    this.addSql(`drop index "feedback_events_comments_age";`);
    this.addSql(`create index "conversations_space_age" on "conversations" ("space_id", "created_at", "id");`);
    this.addSql(`drop index "conversations_space_id_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "conversations_space_id_index" on "conversations" ("space_id");`);
    this.addSql(`drop index "conversations_space_age";`);
    this.addSql(`create index "feedback_events_comments_age" on "feedback_events" ("created_at") where "comments_cleared_at" is null;`);
    this.addSql(`drop index "feedback_events_team_comments_age";`);
    this.addSql(`create index "recall_events_created_at_index" on "recall_events" ("created_at");`);
    this.addSql(`drop index "recall_events_team_age";`);
  }
}
