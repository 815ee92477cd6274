CREATE OR REPLACE FUNCTION public.tool_compaction_policies_of(p_team uuid)
 RETURNS TABLE(tool_name character varying, never_compact boolean, keep_last_n integer, size_threshold integer, clear_inputs boolean)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
begin
  perform rl_enter(p_team, null);
  return query
    select p.tool_name, p.never_compact, p.keep_last_n, p.size_threshold, p.clear_inputs
      from tool_compaction_policies p where p.team_id = p_team;
end
$function$;
