CREATE OR REPLACE FUNCTION public.rl_enter(p_team uuid, p_user uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_team uuid := rl_team();
  v_user uuid := rl_user();
begin
  -- A function that sets the scope from its own arguments may repeat it, or narrow a team-wide
  -- scope to one user; it may not move to another team or user (p_user null keeps the user as set).
  if p_team is null then
    raise exception 'a tenant scope names its team' using errcode = 'RL003';
  end if;
  if v_team is not null and v_team <> p_team then
    raise exception 'the transaction''s tenant scope is already set to another team' using errcode = 'RL003';
  end if;
  if p_user is not null and v_user is not null and v_user <> p_user then
    raise exception 'the transaction''s tenant scope is already set to another user of the team' using errcode = 'RL003';
  end if;
  perform set_config('app.team_id', p_team::text, true);
  if p_user is not null then
    perform set_config('app.user_id', p_user::text, true);
  end if;
end
$function$;
