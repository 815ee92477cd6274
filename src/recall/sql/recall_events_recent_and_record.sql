CREATE OR REPLACE FUNCTION public.recall_events_recent_and_record(p_event jsonb, p_generations jsonb, p_team uuid, p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit integer, p_with_input boolean, p_with_output boolean)
 RETURNS TABLE(id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying, tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens integer, compacted boolean, created_key text, tool_input jsonb, tool_output jsonb, rank bigint)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
begin
  if (p_event->>'team_id')::uuid is distinct from p_team then
    raise exception 'the event is of another team than the read' using errcode = 'RL003';
  end if;
  perform rl_enter(p_team, p_user_id);
  return query
    with conv as (select s.space_id, (p_generations ->> s.space_id::text)::int as generation
                    from tool_results_conversation_space(p_team, p_user_id, p_space_ids, p_conversation_id) s),
    hits as (select * from tool_results_recent(p_team, p_user_id, p_space_ids, p_conversation_id, p_limit, p_with_input, p_with_output)),
    recorded as (insert into recall_events (team_id, id, profile_id, query_fingerprint, query_text, contract_version, ranking_version, fusion_mode,
  search_freshness, degraded_branches, semantic_groups, authored_alternatives, clarification_outcome, source, space_id, space_generation, results, tool_names)
                 select e.team_id, e.id, e.profile_id, e.query_fingerprint, e.query_text, e.contract_version, e.ranking_version, e.fusion_mode,
  e.search_freshness, e.degraded_branches, e.semantic_groups, e.authored_alternatives, e.clarification_outcome, e.source, conv.space_id, conv.generation,
                        (select coalesce(jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb) from hits h),
                        (select coalesce(array_agg(distinct h.tool_name::text order by h.tool_name::text), '{}'::text[]) from hits h)
                   from conv, jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select h.* from conv left join hits h on true order by h.rank;
end
$function$;
