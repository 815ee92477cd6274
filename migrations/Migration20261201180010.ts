import { Migration } from '@mikro-orm/migrations';

const SNAPSHOT_COLUMNS = `id uuid, mem_id varchar, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id varchar, tool_name varchar,
  size_chars int, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens int, compacted boolean,
  created_key text, tool_input jsonb, tool_output jsonb`;

const SELECT_SNAPSHOT = `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
         r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
         to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
         case when p_with_input then r.tool_input end, case when p_with_output then r.tool_output end`;

/**
 * Every snapshot read sees only the current generation of the snapshot's space (issue 20): after
 * `bumpSpaceGeneration` the older ones read exactly as missing, and retention removes them on its
 * normal schedule.
 *
 * - The conversation's recency index gains `space_generation` before the time, so the top-K read
 *   of a conversation (and the trim) still reads K rows when older generations lie in between.
 * - The generation is Tenancy's to tell: `space_generations()` (Migration20261201180000; its current
 *   body is in schema.sql), not a read of `spaces`.
 * - `tool_results_recent` and `tool_results_search` (same signatures, still plain SQL, STABLE, not
 *   STRICT, so they are inlined) take the current generation from an uncorrelated scalar subquery
 *   by id: an InitPlan computed once per statement, which the recency read uses as an index
 *   condition. `tool_results_conversation_space` is unchanged: a conversation is not a snapshot,
 *   and a new write after a bump goes on in the same conversation.
 * - `record_tool_results` trims the current generation only (the cap counts what a conversation
 *   shows).
 */
export class Migration20261201180010 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "message_tool_results_conversation_user_generation_recency" on "message_tool_results" ("conversation_id", "user_id", "space_generation", "created_at" desc, "id" desc);`,
    );
    this.addSql(`drop index "message_tool_results_conversation_user_recency";`);
    this.addSql(`
create or replace function tool_results_recent(p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, rank bigint)
language sql stable as $fn$
  select ${SELECT_SNAPSHOT},
         row_number() over (order by r.created_at desc, r.id desc)
    from message_tool_results r join conversations c on c.id = r.conversation_id
   where r.conversation_id = p_conversation_id and r.user_id = p_user_id and c.space_id = any(p_space_ids) and c.user_id = p_user_id
     and r.space_generation = (select sp.generation from conversations cs join space_generations() sp on sp.space_id = cs.space_id where cs.id = p_conversation_id)
   order by r.created_at desc, r.id desc
   limit p_limit
$fn$;`);
    this.addSql(`
create or replace function tool_results_search(p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid, p_tool_name text,
                                    p_since timestamptz, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, score real, rank bigint)
language sql stable as $fn$
  select ${SELECT_SNAPSHOT},
         ts_rank(r.search_vector, q.query) as score,
         row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
    from message_tool_results r
    join conversations c on c.id = r.conversation_id
    cross join websearch_to_tsquery('simple', p_query) as q(query)
   where r.user_id = p_user_id and c.space_id = p_space_id and p_space_id = any(p_space_ids) and r.search_vector @@ q.query
     and r.space_generation = (select sp.generation from space_generations() sp where sp.space_id = p_space_id)
     and (p_conversation_id is null or r.conversation_id = p_conversation_id)
     and (p_tool_name is null or r.tool_name = p_tool_name)
     and (p_since is null or r.created_at >= p_since)
   order by rank
   limit p_limit
$fn$;`);
    this.addSql(`
create or replace function record_tool_results(
  p_team uuid,
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
  -- Row-level security keys its policies on these, for this transaction only.
  perform set_config('app.team_id', p_team::text, true);
  perform set_config('app.user_id', p_user::text, true);

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
      join conversations c on c.id = (s->>'conversation_id')::uuid and c.user_id = p_user
      join space_generations() sp on sp.space_id = c.space_id
     order by t.n
    on conflict on constraint message_tool_results_user_tool_use_generation_unique do nothing
    returning r.id, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

  -- The oldest uncompacted snapshots of the current generation past the cap, one conversation at
  -- a time (earlier generations read as missing and wait for retention). EXECUTE plans with the
  -- values, as a client statement would be, so each walks the conversation's recency index.
  foreach v_conversation in array p_conversation_ids loop
    execute 'delete from message_tool_results where id in (select id from message_tool_results
               where conversation_id = $1 and user_id = $2
                 and space_generation = (select sp.generation from conversations c join space_generations() sp on sp.space_id = c.space_id where c.id = $1)
                 and not compacted order by created_at desc, id desc offset $3)'
      using v_conversation, p_user, p_cap;
  end loop;

  -- A repeated tool_use_id must name a snapshot the user can still read; the first that does not
  -- (in the order of p_tool_use_ids) is named in the error's detail. Rows of an earlier generation
  -- read as missing, so they are not repeats.
  select jsonb_build_object('tool_use_id', x.tool_use_id) into v_refused
    from message_tool_results x join conversations c on c.id = x.conversation_id
    join space_generations() sp on sp.space_id = c.space_id and sp.generation = x.space_generation
   where x.user_id = p_user and x.tool_use_id = any(p_tool_use_ids) and not (c.space_id = any(p_allowed_spaces))
   order by array_position(p_tool_use_ids, x.tool_use_id::text) limit 1;
  if v_refused is not null then
    raise exception 'a repeated tool_use_id names a snapshot outside the allowed spaces' using errcode = 'RL002', detail = v_refused::text;
  end if;
  -- Compaction hands out the stubs of repeated ones too (of the current generation): they leave the cap.
  if p_compacted then
    update message_tool_results x set compacted = true
      from conversations c, space_generations() sp
     where x.user_id = p_user and not x.compacted and x.tool_use_id = any(p_tool_use_ids)
       and c.id = x.conversation_id and sp.space_id = c.space_id and sp.generation = x.space_generation;
  end if;
end
$fn$;`);
    // create or replace resets the function's settings: one plan per connection, again.
    this.addSql(
      'alter function record_tool_results(uuid, uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean) set plan_cache_mode = force_generic_plan;',
    );
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function record_tool_results(
  p_team uuid,
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
  -- Row-level security keys its policies on these, for this transaction only.
  perform set_config('app.team_id', p_team::text, true);
  perform set_config('app.user_id', p_user::text, true);

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
      join conversations c on c.id = (s->>'conversation_id')::uuid and c.user_id = p_user
      join space_generations() sp on sp.space_id = c.space_id
     order by t.n
    on conflict on constraint message_tool_results_user_tool_use_generation_unique do nothing
    returning r.id, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

  -- The oldest uncompacted snapshots past the cap, one conversation at a time, whatever their
  -- generation. EXECUTE plans with the values, as a client statement would be, so each walks the
  -- conversation's recency index.
  foreach v_conversation in array p_conversation_ids loop
    execute 'delete from message_tool_results where id in (select id from message_tool_results
               where conversation_id = $1 and user_id = $2 and not compacted order by created_at desc, id desc offset $3)'
      using v_conversation, p_user, p_cap;
  end loop;

  -- A repeated tool_use_id must name a snapshot the user can still read; the first that does not
  -- (in the order of p_tool_use_ids) is named in the error's detail. Rows of an earlier generation
  -- read as missing, so they are not repeats.
  select jsonb_build_object('tool_use_id', x.tool_use_id) into v_refused
    from message_tool_results x join conversations c on c.id = x.conversation_id
    join space_generations() sp on sp.space_id = c.space_id and sp.generation = x.space_generation
   where x.user_id = p_user and x.tool_use_id = any(p_tool_use_ids) and not (c.space_id = any(p_allowed_spaces))
   order by array_position(p_tool_use_ids, x.tool_use_id::text) limit 1;
  if v_refused is not null then
    raise exception 'a repeated tool_use_id names a snapshot outside the allowed spaces' using errcode = 'RL002', detail = v_refused::text;
  end if;
  -- Compaction hands out the stubs of repeated ones too (of the current generation): they leave the cap.
  if p_compacted then
    update message_tool_results x set compacted = true
      from conversations c, space_generations() sp
     where x.user_id = p_user and not x.compacted and x.tool_use_id = any(p_tool_use_ids)
       and c.id = x.conversation_id and sp.space_id = c.space_id and sp.generation = x.space_generation;
  end if;
end
$fn$;`);
    // create or replace resets the function's settings: one plan per connection, again.
    this.addSql(
      'alter function record_tool_results(uuid, uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean) set plan_cache_mode = force_generic_plan;',
    );
    this.addSql(`
create or replace function tool_results_search(p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid, p_tool_name text,
                                    p_since timestamptz, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, score real, rank bigint)
language sql stable as $fn$
  select ${SELECT_SNAPSHOT},
         ts_rank(r.search_vector, q.query) as score,
         row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
    from message_tool_results r
    join conversations c on c.id = r.conversation_id
    cross join websearch_to_tsquery('simple', p_query) as q(query)
   where r.user_id = p_user_id and c.space_id = p_space_id and p_space_id = any(p_space_ids) and r.search_vector @@ q.query
     and (p_conversation_id is null or r.conversation_id = p_conversation_id)
     and (p_tool_name is null or r.tool_name = p_tool_name)
     and (p_since is null or r.created_at >= p_since)
   order by rank
   limit p_limit
$fn$;`);
    this.addSql(`
create or replace function tool_results_recent(p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, rank bigint)
language sql stable as $fn$
  select ${SELECT_SNAPSHOT},
         row_number() over (order by r.created_at desc, r.id desc)
    from message_tool_results r join conversations c on c.id = r.conversation_id
   where r.conversation_id = p_conversation_id and r.user_id = p_user_id and c.space_id = any(p_space_ids) and c.user_id = p_user_id
   order by r.created_at desc, r.id desc
   limit p_limit
$fn$;`);
    this.addSql(
      `create index "message_tool_results_conversation_user_recency" on "message_tool_results" ("conversation_id", "user_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(`drop index "message_tool_results_conversation_user_generation_recency";`);
  }
}
