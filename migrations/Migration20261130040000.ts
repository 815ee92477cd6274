import { Migration } from '@mikro-orm/migrations';

/**
 * The functions' statements keep one plan per connection. PostgreSQL's plan cache would
 * otherwise plan their first executions with the values (custom plans) and, for some of them,
 * keep doing so on every call — about 0.5 ms of planning per write. The plans are the same
 * index lookups either way; the trim, whose best plan depends on its values, is an EXECUTE and
 * stays planned per call.
 */
export class Migration20261130040000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter function record_tool_results(uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean) set plan_cache_mode = force_generic_plan;',
    );
    this.addSql('alter function actor_spaces(uuid) set plan_cache_mode = force_generic_plan;');
  }

  override async down(): Promise<void> {
    this.addSql(
      'alter function record_tool_results(uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean) reset plan_cache_mode;',
    );
    this.addSql('alter function actor_spaces(uuid) reset plan_cache_mode;');
  }
}
