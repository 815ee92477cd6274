import { Migration } from '@mikro-orm/migrations';

/**
 * The write function names what it refuses: RL001's detail is the first conversation or message
 * of the batch that is not the user's where the batch says (`{"kind", "id", "actual"}`, `actual`
 * being where the user's own row is, or null), RL002's the first repeated tool_use_id outside the
 * allowed spaces (`{"tool_use_id"}`). The ownership rules then live here only: the service maps
 * the detail to the item's error instead of reading the rows again and re-deciding.
 */
export class Migration20261201170200 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function record_tool_results(
  p_user uuid,
  p_conversation_ids uuid[],
  p_conversation_spaces uuid[],
  p_message_ids uuid[],
  p_message_conversations uuid[],
  p_snapshots jsonb,
  p_tool_use_ids text[],
  p_allowed_spaces uuid[],
  p_cap int,
  p_compacted boolean
) returns table (id uuid, created_key text)
language plpgsql volatile as $fn$
#variable_conflict use_column
declare
  v_conversation uuid;
  v_refused jsonb;
begin
  -- New conversations and messages; existing ones (anyone's) are left alone. Inputs come in id order.
  insert into conversations (id, user_id, space_id)
    select w.id, p_user, w.space_id from unnest(p_conversation_ids, p_conversation_spaces) as w(id, space_id)
    on conflict on constraint conversations_pkey do nothing;
  insert into messages (id, conversation_id, user_id, role)
    select w.id, w.conversation_id, p_user, 'assistant' from unnest(p_message_ids, p_message_conversations) as w(id, conversation_id)
    on conflict on constraint messages_pkey do nothing;

  -- The user's own conversations, locked in id order until the transaction ends; then each
  -- conversation and message of the batch must be the user's, where the batch says it is. The
  -- first that is not (conversations first, in id order) is named in the error's detail, with
  -- where the user's own row really is (null: not the user's, or missing).
  perform 1 from conversations c where c.user_id = p_user and c.id = any(p_conversation_ids) order by c.id for no key update;
  select jsonb_build_object('kind', 'conversation', 'id', w.id, 'actual', c.space_id) into v_refused
    from unnest(p_conversation_ids, p_conversation_spaces) with ordinality as w(id, space_id, n)
    left join conversations c on c.id = w.id and c.user_id = p_user
   where c.space_id is distinct from w.space_id
   order by w.n limit 1;
  if v_refused is null then
    select jsonb_build_object('kind', 'message', 'id', w.id, 'actual', m.conversation_id) into v_refused
      from unnest(p_message_ids, p_message_conversations) with ordinality as w(id, conversation_id, n)
      left join messages m on m.id = w.id and m.user_id = p_user
     where m.conversation_id is distinct from w.conversation_id
     order by w.n limit 1;
  end if;
  if v_refused is not null then
    raise exception 'the batch names a conversation or message that is not the user''s' using errcode = 'RL001', detail = v_refused::text;
  end if;

  -- The snapshots whose tool_use_id is new for the user, in input order (clock_timestamp() per row).
  return query
    insert into message_tool_results as r
      (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
       summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted)
    select (s->>'id')::uuid, p_user, (s->>'message_id')::uuid, (s->>'conversation_id')::uuid, s->>'tool_name', s->'tool_input', s->'tool_output',
           coalesce((s->>'created_at')::timestamptz, clock_timestamp()), s->>'tool_use_id', s->>'mem_id', (s->>'size_chars')::int,
           s->>'summary_oneliner', s->>'schema_hint', s->>'head_preview', s->>'stub', (s->>'size_tokens')::int, p_compacted
      from jsonb_array_elements(p_snapshots) with ordinality as t(s, n)
     order by t.n
    on conflict on constraint message_tool_results_user_tool_use_unique do nothing
    returning r.id, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

  -- The oldest uncompacted snapshots past the cap, one conversation at a time. EXECUTE plans with
  -- the values, as a client statement would be, so each walks the conversation's recency index.
  foreach v_conversation in array p_conversation_ids loop
    execute 'delete from message_tool_results where id in (select id from message_tool_results
               where conversation_id = $1 and user_id = $2 and not compacted order by created_at desc, id desc offset $3)'
      using v_conversation, p_user, p_cap;
  end loop;

  -- A repeated tool_use_id must name a snapshot the user can still read; the first that does not
  -- (in the order of p_tool_use_ids) is named in the error's detail.
  select jsonb_build_object('tool_use_id', x.tool_use_id) into v_refused
    from message_tool_results x join conversations c on c.id = x.conversation_id
   where x.user_id = p_user and x.tool_use_id = any(p_tool_use_ids) and not (c.space_id = any(p_allowed_spaces))
   order by array_position(p_tool_use_ids, x.tool_use_id::text) limit 1;
  if v_refused is not null then
    raise exception 'a repeated tool_use_id names a snapshot outside the allowed spaces' using errcode = 'RL002', detail = v_refused::text;
  end if;
  -- Compaction hands out the stubs of repeated ones too: they leave the cap.
  if p_compacted then
    update message_tool_results x set compacted = true
     where x.user_id = p_user and not x.compacted and x.tool_use_id = any(p_tool_use_ids);
  end if;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function record_tool_results(
  p_user uuid,
  p_conversation_ids uuid[],
  p_conversation_spaces uuid[],
  p_message_ids uuid[],
  p_message_conversations uuid[],
  p_snapshots jsonb,
  p_tool_use_ids text[],
  p_allowed_spaces uuid[],
  p_cap int,
  p_compacted boolean
) returns table (id uuid, created_key text)
language plpgsql volatile as $fn$
#variable_conflict use_column
declare
  v_conversation uuid;
begin
  -- New conversations and messages; existing ones (anyone's) are left alone. Inputs come in id order.
  insert into conversations (id, user_id, space_id)
    select w.id, p_user, w.space_id from unnest(p_conversation_ids, p_conversation_spaces) as w(id, space_id)
    on conflict on constraint conversations_pkey do nothing;
  insert into messages (id, conversation_id, user_id, role)
    select w.id, w.conversation_id, p_user, 'assistant' from unnest(p_message_ids, p_message_conversations) as w(id, conversation_id)
    on conflict on constraint messages_pkey do nothing;

  -- The user's own conversations, locked in id order until the transaction ends; then each
  -- conversation and message of the batch must be the user's, where the batch says it is.
  perform 1 from conversations c where c.user_id = p_user and c.id = any(p_conversation_ids) order by c.id for no key update;
  if (select count(*) from conversations c join unnest(p_conversation_ids, p_conversation_spaces) as w(id, space_id) on c.id = w.id
       where c.user_id = p_user and c.space_id = w.space_id) < cardinality(p_conversation_ids)
     or (select count(*) from messages m join unnest(p_message_ids, p_message_conversations) as w(id, conversation_id) on m.id = w.id
          where m.user_id = p_user and m.conversation_id = w.conversation_id) < cardinality(p_message_ids) then
    raise exception 'the batch names a conversation or message that is not the user''s' using errcode = 'RL001';
  end if;

  -- The snapshots whose tool_use_id is new for the user, in input order (clock_timestamp() per row).
  return query
    insert into message_tool_results as r
      (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
       summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted)
    select (s->>'id')::uuid, p_user, (s->>'message_id')::uuid, (s->>'conversation_id')::uuid, s->>'tool_name', s->'tool_input', s->'tool_output',
           coalesce((s->>'created_at')::timestamptz, clock_timestamp()), s->>'tool_use_id', s->>'mem_id', (s->>'size_chars')::int,
           s->>'summary_oneliner', s->>'schema_hint', s->>'head_preview', s->>'stub', (s->>'size_tokens')::int, p_compacted
      from jsonb_array_elements(p_snapshots) with ordinality as t(s, n)
     order by t.n
    on conflict on constraint message_tool_results_user_tool_use_unique do nothing
    returning r.id, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

  -- The oldest uncompacted snapshots past the cap, one conversation at a time. EXECUTE plans with
  -- the values, as a client statement would be, so each walks the conversation's recency index.
  foreach v_conversation in array p_conversation_ids loop
    execute 'delete from message_tool_results where id in (select id from message_tool_results
               where conversation_id = $1 and user_id = $2 and not compacted order by created_at desc, id desc offset $3)'
      using v_conversation, p_user, p_cap;
  end loop;

  -- A repeated tool_use_id must name a snapshot the user can still read.
  if exists (select 1 from message_tool_results x join conversations c on c.id = x.conversation_id
              where x.user_id = p_user and x.tool_use_id = any(p_tool_use_ids) and not (c.space_id = any(p_allowed_spaces))) then
    raise exception 'a repeated tool_use_id names a snapshot outside the allowed spaces' using errcode = 'RL002';
  end if;
  -- Compaction hands out the stubs of repeated ones too: they leave the cap.
  if p_compacted then
    update message_tool_results x set compacted = true
     where x.user_id = p_user and not x.compacted and x.tool_use_id = any(p_tool_use_ids);
  end if;
end
$fn$;`);
  }
}
