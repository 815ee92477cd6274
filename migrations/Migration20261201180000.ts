import { Migration } from '@mikro-orm/migrations';

const OLD_SIGNATURE = 'record_tool_results(uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean)';
const NEW_SIGNATURE = 'record_tool_results(uuid, uuid, uuid[], uuid[], uuid[], uuid[], jsonb, text[], uuid[], int, boolean)';

/**
 * Snapshots carry their team and the generation of their space at write time (issue 20): a bump
 * makes what a space remembered stale, so reads keep only the current generation's snapshots, and
 * the idempotency key includes the generation, so a replay or a compaction of the same history
 * after a bump records anew instead of mapping to the hidden row. `team_id` is denormalised from
 * the user for the per-team retention sweep and the row-level security policies, with an index on
 * (team_id, created_at) for both.
 *
 * `record_tool_results` takes the team first, fills both columns, and sets the transaction-local
 * `app.team_id` / `app.user_id` the row-level security policies key on. Its repeated-id check and
 * compaction's mark consider the current generation's rows only: older ones read as missing. The
 * trim still counts every generation: older ones are the oldest rows, so they go first.
 */
export class Migration20261201180000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "message_tool_results" add column "team_id" uuid null, add column "space_generation" int null;`);
    this.addSql(`
update "message_tool_results" as r set "team_id" = u.team_id, "space_generation" = s.generation
  from users u, conversations c, spaces s
 where u.id = r.user_id and c.id = r.conversation_id and s.id = c.space_id;`);
    this.addSql(`alter table "message_tool_results" alter column "team_id" set not null, alter column "space_generation" set not null;`);
    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "message_tool_results_team_created_at" on "message_tool_results" ("team_id", "created_at");`);
    // Still led by user_id: it stays the user's index (GDPR deletes by user, repeated-id lookups).
    this.addSql(`alter table "message_tool_results" drop constraint "message_tool_results_user_tool_use_unique";`);
    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_user_tool_use_generation_unique" unique ("user_id", "tool_use_id", "space_generation");`,
    );

    this.addSql(`drop function ${OLD_SIGNATURE};`);
    // Tenancy's answer to "which generation is this space at": ToolResults reads it here, never
    // the spaces table itself. Plain SQL, STABLE, not STRICT: inlined like active_spaces.
    this.addSql(`
create function space_generations() returns table (space_id uuid, generation int)
language sql stable as $fn$ select s.id, s.generation from spaces s $fn$;`);
    this.addSql(`
create function record_tool_results(
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
    // As Migration20261130040000 did for the old signature: one plan per connection.
    this.addSql(`alter function ${NEW_SIGNATURE} set plan_cache_mode = force_generic_plan;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function ${NEW_SIGNATURE};`);
    this.addSql('drop function if exists space_generations();');
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
  v_refused jsonb;
begin
  insert into conversations (id, user_id, space_id)
    select w.id, p_user, w.space_id from unnest(p_conversation_ids, p_conversation_spaces) as w(id, space_id)
    on conflict on constraint conversations_pkey do nothing;
  insert into messages (id, conversation_id, user_id, role)
    select w.id, w.conversation_id, p_user, 'assistant' from unnest(p_message_ids, p_message_conversations) as w(id, conversation_id)
    on conflict on constraint messages_pkey do nothing;

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

  foreach v_conversation in array p_conversation_ids loop
    execute 'delete from message_tool_results where id in (select id from message_tool_results
               where conversation_id = $1 and user_id = $2 and not compacted order by created_at desc, id desc offset $3)'
      using v_conversation, p_user, p_cap;
  end loop;

  select jsonb_build_object('tool_use_id', x.tool_use_id) into v_refused
    from message_tool_results x join conversations c on c.id = x.conversation_id
   where x.user_id = p_user and x.tool_use_id = any(p_tool_use_ids) and not (c.space_id = any(p_allowed_spaces))
   order by array_position(p_tool_use_ids, x.tool_use_id::text) limit 1;
  if v_refused is not null then
    raise exception 'a repeated tool_use_id names a snapshot outside the allowed spaces' using errcode = 'RL002', detail = v_refused::text;
  end if;
  if p_compacted then
    update message_tool_results x set compacted = true
     where x.user_id = p_user and not x.compacted and x.tool_use_id = any(p_tool_use_ids);
  end if;
end
$fn$;`);
    this.addSql(`alter function ${OLD_SIGNATURE} set plan_cache_mode = force_generic_plan;`);
    // Rows of several generations with one tool_use_id cannot go back under the old key: the newest stays.
    this.addSql(`
delete from "message_tool_results" r using "message_tool_results" newer
 where newer.user_id = r.user_id and newer.tool_use_id = r.tool_use_id and newer.space_generation > r.space_generation;`);
    this.addSql(`alter table "message_tool_results" drop constraint "message_tool_results_user_tool_use_generation_unique";`);
    this.addSql(
      `alter table "message_tool_results" add constraint "message_tool_results_user_tool_use_unique" unique ("user_id", "tool_use_id");`,
    );
    this.addSql(`drop index "message_tool_results_team_created_at";`);
    this.addSql(`alter table "message_tool_results" drop constraint "message_tool_results_team_id_foreign";`);
    this.addSql(`alter table "message_tool_results" drop column "team_id", drop column "space_generation";`);
  }
}
