CREATE OR REPLACE FUNCTION public.recall_events_visible(p_team uuid)
 RETURNS SETOF public.recall_events
 LANGUAGE sql
 STABLE
AS $function$
  select e.* from recall_events e
    join active_spaces(p_team) s on s.space_id = e.space_id and s.generation = e.space_generation
   where e.team_id = p_team
$function$;
