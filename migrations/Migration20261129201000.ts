import { Migration } from '@mikro-orm/migrations';

export class Migration20261129201000 extends Migration {
  override async up(): Promise<void> {
    // A conversation has one owner, so user_id depends on conversation_id. Without this the
    // planner multiplies the two selectivities, expects ~2 rows for a conversation, and sorts
    // the whole conversation instead of walking the scoped recency index for the top K.
    this.addSql(
      `create statistics if not exists "message_tool_results_conversation_user_dependency" (dependencies) on "conversation_id", "user_id" from "message_tool_results";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop statistics if exists "message_tool_results_conversation_user_dependency";`);
  }
}
