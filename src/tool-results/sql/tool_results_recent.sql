CREATE OR REPLACE FUNCTION public.tool_results_recent(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit integer, p_with_input boolean, p_with_output boolean)
 RETURNS TABLE(id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying, tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens integer, compacted boolean, created_key text, tool_input jsonb, tool_output jsonb, rank bigint)
 LANGUAGE sql
 STABLE
AS $function$
  select r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
         r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
         to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
         case when p_with_input then r.tool_input end, case when p_with_output then r.tool_output end,
         row_number() over (order by r.created_at desc, r.id desc)
    from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
   where r.team_id = p_team and r.conversation_id = p_conversation_id and r.user_id = p_user_id
     and c.space_id = any(p_space_ids) and c.user_id = p_user_id
     and r.space_generation = (select sp.generation from conversations cs join space_generations(p_team) sp on sp.space_id = cs.space_id
                                where cs.team_id = p_team and cs.id = p_conversation_id)
   order by r.created_at desc, r.id desc
   limit p_limit
$function$;
