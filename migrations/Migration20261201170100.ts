import { Migration } from '@mikro-orm/migrations';

/**
 * Tenancy's view of the spaces a team's recall and feedback events stay visible in (R-FB-8): the
 * team's ACTIVE spaces with their current generation. Recall Events and Feedback join it instead
 * of reading `spaces` themselves; it is plain SQL, STABLE and not STRICT, so PostgreSQL inlines it
 * into the calling statement and plans the join as if the table stood there.
 */
export class Migration20261201170100 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function active_spaces(p_team_id uuid) returns table (space_id uuid, generation int)
language sql stable as $fn$
  select s.id, s.generation from spaces s where s.team_id = p_team_id and s.status = 'ACTIVE'
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists active_spaces(uuid);');
  }
}
