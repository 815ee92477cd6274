CREATE OR REPLACE FUNCTION public.space_generations(p_team uuid)
 RETURNS TABLE(space_id uuid, generation integer)
 LANGUAGE sql
 STABLE
AS $function$ select s.id, s.generation from spaces s where s.team_id = p_team $function$;
