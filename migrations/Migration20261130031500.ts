import { Migration } from '@mikro-orm/migrations';

/**
 * The snapshot write path (R-TR-1..R-TR-4) as one server-side function, so a batch costs one
 * round trip instead of six (begin, create missing rows, lock, insert, trim, commit). It runs the
 * same statements in the same order as before, each with its own snapshot (READ COMMITTED): the
 * conversations are locked in id order before the insert, and the trim sees every row committed
 * before the lock was granted, so the cap stays exact under concurrent writers. A batch that
 * refers to another user's (or a missing) conversation or message raises RL001, and a repeated
 * tool_use_id whose snapshot lies outside the allowed spaces raises RL002: the whole statement
 * is undone and the service reports which item is wrong.
 */
export class Migration20261130031500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function record_tool_results(
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

  override async down(): Promise<void> {
    this.addSql('drop function if exists record_tool_results(uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean);');
  }
}
