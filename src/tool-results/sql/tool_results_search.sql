CREATE OR REPLACE FUNCTION public.tool_results_search(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid, p_tool_name text, p_since timestamp with time zone, p_limit integer, p_with_input boolean, p_with_output boolean)
 RETURNS TABLE(id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying, tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens integer, compacted boolean, created_key text, tool_input jsonb, tool_output jsonb, score real, rank bigint)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_custom_plan'
AS $function$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user_id);
  return query
    select h.id, h.mem_id, h.space_id, h.conversation_id, h.message_id, h.tool_use_id, h.tool_name, h.size_chars, h.summary_oneliner,
           h.schema_hint, h.head_preview, h.stub, h.size_tokens, h.compacted, h.created_key, h.tool_input, h.tool_output, h.score, h.rank
      from (
      select r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
             r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
             to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key,
             case when p_with_input then r.tool_input end as tool_input, case when p_with_output then r.tool_output end as tool_output, c.user_id as conversation_user_id,
             ts_rank(r.search_vector, q.query) as score,
             row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
        from message_tool_results r
        join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
        cross join websearch_to_tsquery('simple', p_query) as q(query)
       where r.team_id = p_team and r.user_id = p_user_id
         and c.space_id = p_space_id and p_space_id = any(p_space_ids)
         and r.search_vector @@ q.query
         and r.space_generation = (select sp.generation from space_generations(p_team) sp where sp.space_id = p_space_id)
         and (p_conversation_id is null or r.conversation_id = p_conversation_id)
         and (p_tool_name is null or r.tool_name = p_tool_name)
         and (p_since is null or r.created_at >= p_since)
       order by rank
       limit p_limit) h
     where h.conversation_user_id = p_user_id
     order by h.rank;
end
$function$;
