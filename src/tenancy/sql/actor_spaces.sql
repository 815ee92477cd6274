CREATE OR REPLACE FUNCTION public.actor_spaces(p_user uuid, p_team uuid)
 RETURNS TABLE(team_id uuid, space_id uuid, generation integer)
 LANGUAGE sql
AS $function$ select * from actor_spaces(p_user, p_team, null) $function$;
