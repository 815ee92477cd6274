CREATE OR REPLACE FUNCTION public.tool_results_path_value_for_token(p_user_id uuid, p_team uuid, p_issued_at timestamp with time zone, p_mem_id text, p_keys text[], p_path jsonpath, p_max_chars integer)
 RETURNS TABLE(actor_status text, actor_space_ids uuid[], actor_generations integer[], kind text, body text, body_length integer, complete boolean)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
declare
  v_known boolean;
  v_space_ids uuid[];
  v_generations integer[];
begin

  select count(*) > 0,
         coalesce(array_agg(a.space_id order by a.space_id) filter (where a.space_id is not null), '{}'),
         coalesce(array_agg(a.generation order by a.space_id) filter (where a.space_id is not null), '{}')
    into v_known, v_space_ids, v_generations
    from actor_spaces(p_user_id, p_team, p_issued_at) a;
  if not v_known then
    return query select 'new'::text, v_space_ids, v_generations, null::text, null::text, null::integer, null::boolean;
    return;
  end if;
  return query select 'ok'::text, v_space_ids, v_generations, inner_rows.* from tool_results_path_value(p_team, p_user_id, v_space_ids, p_mem_id, p_keys, p_path, p_max_chars) inner_rows;
  if not found then
    return query select 'missing'::text, v_space_ids, v_generations, null::text, null::text, null::integer, null::boolean;
  end if;
end
$function$;
