CREATE OR REPLACE FUNCTION public.tool_summary_rules_of(p_team uuid, p_tools text[])
 RETURNS TABLE(tool_name text, rule jsonb)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
begin
  perform rl_enter(p_team, null);
  return query
    select r.tool_name, r.rule from tool_summary_rules r where r.team_id = p_team and r.tool_name = any(p_tools);
end
$function$;
