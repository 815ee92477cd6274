CREATE OR REPLACE FUNCTION public.record_tool_results(p_team uuid, p_user uuid, p_conversation_ids uuid[], p_conversation_spaces uuid[], p_message_ids uuid[], p_message_conversations uuid[], p_snapshots jsonb, p_tool_use_ids text[], p_allowed_spaces uuid[], p_cap integer, p_compacted boolean)
 RETURNS TABLE(id uuid, created_key text)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
declare
  v_conversation uuid;
  v_refused jsonb;
begin
  perform rl_enter(p_team, p_user);

  -- New conversations and messages of the team; existing ones (a teammate's too) are left alone.
  -- Ids are the team's own: another team's use of the same id is another row. Inputs come in id order.
  insert into conversations (team_id, id, user_id, space_id)
    select p_team, w.id, p_user, w.space_id from unnest(p_conversation_ids, p_conversation_spaces) as w(id, space_id)
    on conflict on constraint conversations_pkey do nothing;
  insert into messages (team_id, id, conversation_id, user_id, role)
    select p_team, w.id, w.conversation_id, p_user, 'assistant' from unnest(p_message_ids, p_message_conversations) as w(id, conversation_id)
    on conflict on constraint messages_pkey do nothing;

  -- The user's own conversations, locked in id order until the transaction ends; then each
  -- conversation and message of the batch must be the user's, where the batch says it is. The
  -- first that is not (conversations first, in id order) is named in the error's detail, with
  -- where the user's own row really is (null: not the user's, or missing).
  perform 1 from conversations c where c.team_id = p_team and c.user_id = p_user and c.id = any(p_conversation_ids) order by c.id for no key update;
  select jsonb_build_object('kind', 'conversation', 'id', w.id, 'actual', c.space_id) into v_refused
    from unnest(p_conversation_ids, p_conversation_spaces) with ordinality as w(id, space_id, n)
    left join conversations c on c.team_id = p_team and c.id = w.id and c.user_id = p_user
   where c.space_id is distinct from w.space_id
   order by w.n limit 1;
  if v_refused is null then
    select jsonb_build_object('kind', 'message', 'id', w.id, 'actual', m.conversation_id) into v_refused
      from unnest(p_message_ids, p_message_conversations) with ordinality as w(id, conversation_id, n)
      left join messages m on m.team_id = p_team and m.id = w.id and m.user_id = p_user
     where m.conversation_id is distinct from w.conversation_id
     order by w.n limit 1;
  end if;
  if v_refused is not null then
    raise exception 'the batch names a conversation or message that is not the user''s' using errcode = 'RL001', detail = v_refused::text;
  end if;

  -- The snapshots whose tool_use_id is new for the user in their space's current generation, in
  -- input order (clock_timestamp() per row), stamped with that generation.
  return query
    insert into message_tool_results as r
      (id, team_id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
       summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted, space_generation)
    select (s->>'id')::uuid, p_team, p_user, (s->>'message_id')::uuid, (s->>'conversation_id')::uuid, s->>'tool_name', s->'tool_input', s->'tool_output',
           coalesce((s->>'created_at')::timestamptz, clock_timestamp()), s->>'tool_use_id', s->>'mem_id', (s->>'size_chars')::int,
           s->>'summary_oneliner', s->>'schema_hint', s->>'head_preview', s->>'stub', (s->>'size_tokens')::int, p_compacted, sp.generation
      from jsonb_array_elements(p_snapshots) with ordinality as t(s, n)
      join conversations c on c.team_id = p_team and c.id = (s->>'conversation_id')::uuid and c.user_id = p_user
      join space_generations(p_team) sp on sp.space_id = c.space_id
     order by t.n
    on conflict on constraint message_tool_results_user_tool_use_generation_unique do nothing
    returning r.id, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

  -- The oldest uncompacted snapshots of the current generation past the cap, one conversation at
  -- a time (earlier generations read as missing and wait for retention). A kept generic plan walks
  -- the conversation's recency index: every key column before the order is an equality.
  foreach v_conversation in array p_conversation_ids loop
    delete from message_tool_results x where x.team_id = p_team and x.id in (
      select y.id from message_tool_results y
       where y.team_id = p_team and y.conversation_id = v_conversation and y.user_id = p_user
         and y.space_generation = (select sp.generation from conversations c join space_generations(p_team) sp on sp.space_id = c.space_id
                                    where c.team_id = p_team and c.id = v_conversation)
         and not y.compacted
       order by y.created_at desc, y.id desc offset p_cap);
  end loop;

  -- A repeated tool_use_id must name a snapshot the user can still read; the first that does not
  -- (in the order of p_tool_use_ids) is named in the error's detail. Rows of an earlier generation
  -- read as missing, so they are not repeats.
  select jsonb_build_object('tool_use_id', x.tool_use_id) into v_refused
    from message_tool_results x join conversations c on c.team_id = x.team_id and c.id = x.conversation_id
    join space_generations(p_team) sp on sp.space_id = c.space_id and sp.generation = x.space_generation
   where x.team_id = p_team and x.user_id = p_user and x.tool_use_id = any(p_tool_use_ids) and not (c.space_id = any(p_allowed_spaces))
   order by array_position(p_tool_use_ids, x.tool_use_id::text) limit 1;
  if v_refused is not null then
    raise exception 'a repeated tool_use_id names a snapshot outside the allowed spaces' using errcode = 'RL002', detail = v_refused::text;
  end if;
  -- Compaction hands out the stubs of repeated ones too (of the current generation): they leave the cap.
  if p_compacted then
    update message_tool_results x set compacted = true
      from conversations c, space_generations(p_team) sp
     where x.team_id = p_team and x.user_id = p_user and not x.compacted and x.tool_use_id = any(p_tool_use_ids)
       and c.team_id = x.team_id and c.id = x.conversation_id and sp.space_id = c.space_id and sp.generation = x.space_generation;
  end if;
end
$function$;
