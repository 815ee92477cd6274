import { Migration } from '@mikro-orm/migrations';

const APP_ROLE = 'recall_ledger_app';
const TEAM = '(select rl_team())';

/**
 * A user deleted by `deleteUserData` leaves a tombstone (team, user, when): a token issued before
 * it is refused for that user instead of provisioning them again (R-RT-4). The actor's lookup,
 * which every request makes, checks it in the same round trip.
 */
export class Migration20261202123401_user_tombstones extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "user_tombstones" ("team_id" uuid not null, "user_id" uuid not null, "deleted_at" timestamptz not null,
      constraint "user_tombstones_pkey" primary key ("team_id", "user_id"));`);
    this.addSql(`alter table "user_tombstones" add constraint "user_tombstones_team_id_foreign" foreign key ("team_id")
      references "teams" ("id") on update no action on delete cascade;`);
    this.addSql('alter table user_tombstones enable row level security, force row level security;');
    this.addSql(`grant select, insert, update, delete on user_tombstones to ${APP_ROLE};`);
    this.addSql(`create policy tenant_rows on user_tombstones to ${APP_ROLE} using (team_id = ${TEAM}) with check (team_id = ${TEAM});`);
    this.addSql(`do $do$ begin
  execute format('create policy owner_rows on user_tombstones to %I using (true) with check (true)', current_user);
end $do$;`);

    this.addSql('drop function actor_spaces(uuid, uuid);');
    this.addSql(actorSpaces(true));
    // The previous release's replicas call the two-argument form while a rolling deploy runs: it
    // stays, knowing no token's age, so a deleted user's tokens are all refused there.
    this.addSql(`
create function actor_spaces(p_user uuid, p_team uuid) returns table (team_id uuid, space_id uuid, generation int)
language sql as $fn$ select * from actor_spaces(p_user, p_team, null) $fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists actor_spaces(uuid, uuid);');
    this.addSql('drop function actor_spaces(uuid, uuid, timestamptz);');
    this.addSql(actorSpaces(false));
    this.addSql('drop table if exists "user_tombstones" cascade;');
  }
}

/** The actor's user and allowed spaces; with `tombstones`, refusing (RL004) a token issued before the user's deletion. */
function actorSpaces(tombstones: boolean): string {
  const signature = tombstones ? 'p_user uuid, p_team uuid, p_issued_at timestamptz' : 'p_user uuid, p_team uuid';
  // A token's iat has whole seconds: one issued in the second of the deletion is refused too.
  const check = tombstones
    ? `
  if exists (select 1 from user_tombstones t
              where t.team_id = p_team and t.user_id = p_user and (p_issued_at is null or p_issued_at <= t.deleted_at)) then
    raise exception 'the token was issued before its user was deleted' using errcode = 'RL004';
  end if;`
    : '';
  return `
create function actor_spaces(${signature}) returns table (team_id uuid, space_id uuid, generation int)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user);${check}
  return query
    select u.team_id, s.id, s.generation
      from users u
      left join space_members m on m.team_id = u.team_id and m.user_id = u.id
      left join spaces s on s.team_id = m.team_id and s.id = m.space_id and s.status = 'ACTIVE'
     where u.team_id = p_team and u.id = p_user
     order by s.id;
end
$fn$;`;
}
