import { Migration } from '@mikro-orm/migrations';

/**
 * A feedback event recorded under a client id keeps the digest of its item's canonical form, so
 * a replay of the key with different content is told apart from a blind replay (R-FB-5). Events
 * recorded before have none: their replays are taken as blind, as they were.
 */
export class Migration20261201180100 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "feedback_events" add column "item_digest" varchar(64) null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "feedback_events" drop column "item_digest";');
  }
}
