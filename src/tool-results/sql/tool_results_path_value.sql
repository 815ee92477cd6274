CREATE OR REPLACE FUNCTION public.tool_results_path_value(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_mem_id text, p_keys text[], p_path jsonpath, p_max_chars integer)
 RETURNS TABLE(kind text, body text, body_length integer, complete boolean)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user_id);
  -- offset 0 fences each lateral: inlined, the large value would be decompressed once per reference.
  return query
    select v.kind, left(v.body, p_max_chars), length(v.body), length(v.body) <= p_max_chars
      from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
      join space_generations(p_team) s on s.space_id = c.space_id and s.generation = r.space_generation
     cross join lateral (
       select case when p_keys is not null
                   then coalesce(r.tool_output #> p_keys, case when jsonb_typeof(r.tool_output) = 'string' and left(ltrim(r.tool_output #>> '{}', E' \t\r\n'), 1) in ('{', '[') then (r.tool_output #>> '{}')::jsonb #> p_keys end)
                   else coalesce(jsonb_path_query_first(r.tool_output, p_path),
                                 case when jsonb_typeof(r.tool_output) = 'string' and left(ltrim(r.tool_output #>> '{}', E' \t\r\n'), 1) in ('{', '[') then jsonb_path_query_first((r.tool_output #>> '{}')::jsonb, p_path) end)
              end as value
       offset 0) selected
     cross join lateral (
       select jsonb_typeof(selected.value) as kind,
              case when jsonb_typeof(selected.value) = 'string' then selected.value #>> '{}' else selected.value::text end as body
       offset 0) v
     where r.team_id = p_team and r.user_id = p_user_id and c.space_id = any(p_space_ids) and r.mem_id = p_mem_id;
end
$function$;
