CREATE OR REPLACE FUNCTION public.active_spaces(p_team_id uuid)
 RETURNS TABLE(space_id uuid, generation integer)
 LANGUAGE sql
 STABLE
AS $function$
  select s.id, s.generation from spaces s where s.team_id = p_team_id and s.status = 'ACTIVE'
$function$;
