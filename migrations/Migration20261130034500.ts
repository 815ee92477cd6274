import { Migration } from '@mikro-orm/migrations';

/**
 * The actor lookup that every authenticated request runs (R-TN-4), as a PL/pgSQL function: its
 * plan is cached per connection, so the statement is not planned again on every request. A
 * prepared statement would do the same, but not behind PgBouncer in transaction mode (< 1.21).
 */
export class Migration20261130034500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function actor_spaces(p_user uuid) returns table (team_id uuid, space_id uuid, generation int)
language plpgsql stable as $fn$
#variable_conflict use_column
begin
  return query
    select u.team_id, s.id, s.generation
      from users u
      left join space_members m on m.user_id = u.id
      left join spaces s on s.id = m.space_id and s.team_id = u.team_id and s.status = 'ACTIVE'
     where u.id = p_user
     order by s.id;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists actor_spaces(uuid);');
  }
}
