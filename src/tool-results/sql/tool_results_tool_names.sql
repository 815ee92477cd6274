CREATE OR REPLACE FUNCTION public.tool_results_tool_names(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_ids uuid[])
 RETURNS text[]
 LANGUAGE sql
 STABLE
AS $function$
  select coalesce(array_agg(distinct r.tool_name::text order by r.tool_name::text), '{}'::text[])
    from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
    join space_generations(p_team) s on s.space_id = c.space_id and s.generation = r.space_generation
   where r.team_id = p_team and r.user_id = p_user_id and c.space_id = any(p_space_ids) and r.id = any(p_ids)
$function$;
