CREATE OR REPLACE FUNCTION public.recall_block_for_token(p_event jsonb, p_user_id uuid, p_team uuid, p_issued_at timestamp with time zone, p_conversation_id uuid, p_limit integer, p_with_input boolean, p_with_output boolean)
 RETURNS TABLE(actor_status text, actor_space_ids uuid[], actor_generations integer[], id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying, tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens integer, compacted boolean, created_key text, tool_input jsonb, tool_output jsonb, rank bigint)
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
    return query select 'new'::text, v_space_ids, v_generations, null::uuid, null::character varying, null::uuid, null::uuid, null::uuid, null::character varying, null::character varying, null::integer, null::text, null::text, null::text, null::text, null::integer, null::boolean, null::text, null::jsonb, null::jsonb, null::bigint;
    return;
  end if;
  return query select 'ok'::text, v_space_ids, v_generations, inner_rows.* from recall_events_recent_and_record(p_event,
             (select coalesce(jsonb_object_agg(s, g), '{}'::jsonb) from unnest(v_space_ids, v_generations) as t(s, g)),
             p_team, p_user_id, v_space_ids, p_conversation_id, p_limit, p_with_input, p_with_output) inner_rows;
  if not found then
    return query select 'missing'::text, v_space_ids, v_generations, null::uuid, null::character varying, null::uuid, null::uuid, null::uuid, null::character varying, null::character varying, null::integer, null::text, null::text, null::text, null::text, null::integer, null::boolean, null::text, null::jsonb, null::jsonb, null::bigint;
  end if;
end
$function$;
