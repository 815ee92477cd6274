CREATE OR REPLACE FUNCTION public.actor_spaces(p_user uuid, p_team uuid, p_issued_at timestamp with time zone)
 RETURNS TABLE(team_id uuid, space_id uuid, generation integer)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user);
  if exists (select 1 from user_tombstones t
              where t.team_id = p_team and t.user_id = p_user and (p_issued_at is null or p_issued_at <= t.deleted_at)) then
    raise exception 'the token was issued before its user was deleted' using errcode = 'RL004';
  end if;
  return query
    select u.team_id, s.id, s.generation
      from users u
      left join space_members m on m.team_id = u.team_id and m.user_id = u.id
      left join spaces s on s.team_id = m.team_id and s.id = m.space_id and s.status = 'ACTIVE'
     where u.team_id = p_team and u.id = p_user
     order by s.id;
end
$function$;
