import { Migration } from '@mikro-orm/migrations';

const APP_ROLE = 'recall_ledger_app';

/** The request's team and user, each read once per statement (an InitPlan), not once per row. */
const TEAM = '(select rl_team())';
const USER = '(select rl_user())';

/**
 * A user's row: with the request's user set, that user's only; team-wide (user unset), the team's.
 * A CASE, not an OR: the planner takes an OR's user equality for a second filter on the user the
 * statement already names, and estimates a conversation's snapshots at one row (the top-K read
 * then sorts the whole conversation); a CASE costs it a constant factor only.
 */
const userDeep = `team_id = ${TEAM} and case when ${USER} is null then true else user_id = ${USER} end`;

/** Tenant tables and who may see a row of each (docs/tenancy.md, "Row-level security"). */
const POLICIES: Record<string, string> = {
  teams: `id = ${TEAM}`,
  users: `team_id = ${TEAM}`,
  spaces: `team_id = ${TEAM}`,
  space_members: `team_id = ${TEAM}`,
  team_feature_flags: `team_id = ${TEAM}`,
  // User-deep: with the request's user set, a row of a teammate is not there; team-wide work
  // (an admin's inspection, the sweep, a user's deletion) runs with the user unset.
  conversations: userDeep,
  messages: userDeep,
  message_tool_results: userDeep,
  recall_events: `team_id = ${TEAM}`,
  feedback_events: `team_id = ${TEAM}`,
  tool_summary_rules: `team_id = ${TEAM}`,
};

/** A snapshot's columns as the read functions return them (aliases r, c). */
const SNAPSHOT_COLUMNS = `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
         r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
         to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
         case when p_with_input then r.tool_input end, case when p_with_output then r.tool_output end`;

const SNAPSHOT_ROW = `id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying,
  tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens integer,
  compacted boolean, created_key text, tool_input jsonb, tool_output jsonb`;

const EVENT_COLUMNS = `team_id, id, profile_id, query_fingerprint, query_text, contract_version, ranking_version, fusion_mode,
  search_freshness, degraded_branches, semantic_groups, authored_alternatives, clarification_outcome, source`;

/**
 * Every row keyed by its team (issue 36; docs/scaling.md). Client-chosen ids (conversation,
 * message) and users become the team's own: every tenant table carries `team_id`, and its primary
 * key, each unique key and each foreign key between tenant tables include it. The same id or
 * `sub` in another team is another row, never a refusal, a probe or a reach; a foreign key can no
 * longer tie a row to another team's space or user (foreign-key checks bypass row-level security).
 * Feature flags split into the global defaults (a reference table, read-only to requests) and the
 * teams' own values. Existing rows are migrated in place, set-based: a conversation, message and
 * membership take their user's team.
 *
 * Row-level security goes user-deep on snapshots (as on conversations and messages), and every
 * database function names the team in each of its statements and enters the scope through
 * `rl_enter`, which refuses to change a team or user already set in the transaction.
 */
export class Migration20261202100000_team_keyed_schema extends Migration {
  override async up(): Promise<void> {
    // Policies and read functions refer to the keys being replaced: they are rebuilt below.
    for (const table of Object.keys(POLICIES)) {
      if (table !== 'team_feature_flags') this.addSql(`drop policy if exists tenant_rows on ${table};`);
    }
    this.addSql('drop policy if exists tenant_rows on feature_flags;');
    this.addSql('drop policy if exists owner_rows on feature_flags;');
    // At once, not with the other policies below: under FORCE with no policy left, an owner that is
    // not a superuser (a managed PostgreSQL's) would read no team's value to move and delete none.
    this.addSql('alter table feature_flags no force row level security, disable row level security;');

    // Foreign keys that do not carry the team.
    for (const [table, keys] of Object.entries({
      space_members: ['space_id', 'user_id'],
      recall_events: ['profile_id', 'space_id'],
      feedback_events: ['actor_id', 'profile_id', 'space_id'],
      conversations: ['space_id', 'user_id'],
      messages: ['conversation_id', 'user_id'],
      message_tool_results: ['conversation_id', 'message_id', 'user_id'],
      feature_flags: ['team_id'],
    })) {
      for (const key of keys) this.addSql(`alter table ${table} drop constraint ${table}_${key}_foreign;`);
    }

    // The team of every row that lacked one: its user's (set-based, one statement per table).
    for (const table of ['space_members', 'conversations', 'messages']) {
      this.addSql(`alter table ${table} add column team_id uuid;`);
      this.addSql(`update ${table} t set team_id = u.team_id from users u where u.id = t.user_id;`);
      this.addSql(`alter table ${table} alter column team_id set not null;`);
    }

    // Feature flags: the defaults stay (keyed by key); the teams' values move to their own table.
    this.addSql(`create table team_feature_flags (team_id uuid not null, key varchar(64) not null, enabled boolean not null,
      updated_at timestamptz not null default now(), constraint team_feature_flags_pkey primary key (team_id, key));`);
    this.addSql(`insert into team_feature_flags (team_id, key, enabled, updated_at)
      select team_id, key, enabled, updated_at from feature_flags where team_id is not null;`);
    this.addSql('delete from feature_flags where team_id is not null;');
    this.addSql('drop index feature_flags_key_team_unique;');
    this.addSql('alter table feature_flags drop constraint feature_flags_pkey;');
    this.addSql('alter table feature_flags drop column id, drop column team_id;');
    this.addSql('alter table feature_flags add constraint feature_flags_pkey primary key (key);');
    this
      .addSql(`alter table team_feature_flags add constraint team_feature_flags_team_id_foreign foreign key (team_id) references teams (id)
      on update no action on delete cascade;`);
    this
      .addSql(`alter table team_feature_flags add constraint team_feature_flags_key_foreign foreign key (key) references feature_flags (key)
      on update no action on delete cascade;`);

    // Primary and unique keys led by the team; indexes that a key now covers go.
    this.addSql('drop index spaces_team_id_index;');
    this.addSql('drop index users_team_id_index;');
    this.addSql('drop index space_members_user_id_index;');
    this.addSql('drop index feedback_events_actor_id_index;');
    this.addSql('drop index conversations_user_id_index;');
    this.addSql('drop index messages_conversation_id_index;');
    this.addSql('drop index messages_user_id_index;');
    this.addSql('drop index ix_message_tool_results_conversation_recency;');
    this.addSql('drop index message_tool_results_created_at_index;');
    this.addSql('drop index message_tool_results_message_id_index;');
    this.addSql('alter table message_tool_results drop constraint message_tool_results_mem_id_unique;');
    this.addSql('alter table message_tool_results drop constraint message_tool_results_user_tool_use_generation_unique;');
    for (const table of ['spaces', 'users', 'space_members', 'conversations', 'messages', 'message_tool_results']) {
      this.addSql(`alter table ${table} drop constraint ${table}_pkey;`);
    }
    this.addSql('alter table spaces add constraint spaces_pkey primary key (team_id, id);');
    this.addSql('alter table users add constraint users_pkey primary key (team_id, id);');
    this.addSql('alter table space_members add constraint space_members_pkey primary key (team_id, space_id, user_id);');
    this.addSql('alter table conversations add constraint conversations_pkey primary key (team_id, id);');
    this.addSql('alter table messages add constraint messages_pkey primary key (team_id, id);');
    this.addSql('alter table message_tool_results add constraint message_tool_results_pkey primary key (team_id, id);');
    this.addSql('alter table message_tool_results add constraint message_tool_results_mem_id_unique unique (team_id, mem_id);');
    this.addSql(`alter table message_tool_results add constraint message_tool_results_user_tool_use_generation_unique
      unique (team_id, user_id, tool_use_id, space_generation);`);

    // Foreign keys with the team on both sides. A team id never changes: no update rule (a
    // distributed table's foreign keys over its distribution column take none, docs/scaling.md).
    for (const [table, key] of [
      ['spaces', 'team_id'],
      ['users', 'team_id'],
      ['tool_summary_rules', 'team_id'],
      ['recall_events', 'team_id'],
      ['feedback_events', 'team_id'],
      ['message_tool_results', 'team_id'],
    ]) {
      this.addSql(`alter table ${table} drop constraint ${table}_${key}_foreign;`);
      this.addSql(`alter table ${table} add constraint ${table}_${key}_foreign foreign key (team_id) references teams (id)
        on update no action on delete cascade;`);
    }
    this.addSql('alter table feedback_events drop constraint feedback_events_team_id_recall_event_id_foreign;');
    this
      .addSql(`alter table feedback_events add constraint feedback_events_team_id_recall_event_id_foreign foreign key (team_id, recall_event_id)
      references recall_events (team_id, id) on update no action on delete cascade;`);
    const foreignKey = (table: string, column: string, target: string, targetColumn = 'id') =>
      this.addSql(`alter table ${table} add constraint ${table}_team_id_${column}_foreign foreign key (team_id, ${column})
        references ${target} (team_id, ${targetColumn}) on update no action on delete cascade;`);
    const teamKey = (table: string) =>
      this.addSql(`alter table ${table} add constraint ${table}_team_id_foreign foreign key (team_id) references teams (id)
        on update no action on delete cascade;`);
    teamKey('space_members');
    foreignKey('space_members', 'space_id', 'spaces');
    foreignKey('space_members', 'user_id', 'users');
    foreignKey('recall_events', 'profile_id', 'users');
    foreignKey('recall_events', 'space_id', 'spaces');
    foreignKey('feedback_events', 'profile_id', 'users');
    foreignKey('feedback_events', 'actor_id', 'users');
    foreignKey('feedback_events', 'space_id', 'spaces');
    teamKey('conversations');
    foreignKey('conversations', 'user_id', 'users');
    foreignKey('conversations', 'space_id', 'spaces');
    teamKey('messages');
    foreignKey('messages', 'conversation_id', 'conversations');
    foreignKey('messages', 'user_id', 'users');
    foreignKey('message_tool_results', 'user_id', 'users');
    foreignKey('message_tool_results', 'message_id', 'messages');
    foreignKey('message_tool_results', 'conversation_id', 'conversations');

    // Indexes of the hot reads and the cascades, led by the team every statement names.
    this.addSql('create index space_members_team_user on space_members (team_id, user_id);');
    this.addSql('create index feedback_events_team_actor on feedback_events (team_id, actor_id);');
    this.addSql('create index conversations_team_user on conversations (team_id, user_id);');
    this.addSql('drop index conversations_space_age;');
    this.addSql('create index conversations_space_age on conversations (team_id, space_id, created_at, id);');
    this.addSql('create index messages_team_user on messages (team_id, user_id);');
    this.addSql('create index messages_team_conversation on messages (team_id, conversation_id);');
    this.addSql('create index message_tool_results_team_message on message_tool_results (team_id, message_id);');
    this.addSql('drop index message_tool_results_conversation_user_generation_recency;');
    this.addSql(`create index message_tool_results_conversation_user_generation_recency
      on message_tool_results (team_id, conversation_id, user_id, space_generation, created_at desc, id desc);`);
    this.addSql('drop index message_tool_results_user_recency;');
    this.addSql('create index message_tool_results_user_recency on message_tool_results (team_id, user_id, created_at desc, id desc);');
    this.addSql('drop index message_tool_results_user_search;');
    this.addSql('create index message_tool_results_user_search on message_tool_results using gin (team_id, user_id, search_vector);');
    this.addSql('drop index recall_events_profile_recency;');
    this.addSql('create index recall_events_profile_recency on recall_events (team_id, profile_id, created_at);');

    // Row-level security: the defaults belong to no team (read-only to requests; unforced above); the teams' values do.
    this.addSql(`revoke insert, update, delete on feature_flags from ${APP_ROLE};`);
    this.addSql('alter table team_feature_flags enable row level security, force row level security;');
    this.addSql(`grant select, insert, update, delete on team_feature_flags to ${APP_ROLE};`);
    this.addSql(`do $do$ begin
  execute format('create policy owner_rows on team_feature_flags to %I using (true) with check (true)', current_user);
end $do$;`);
    for (const [table, visible] of Object.entries(POLICIES)) {
      this.addSql(`create policy tenant_rows on ${table} to ${APP_ROLE} using (${visible}) with check (${visible});`);
    }
    this.addSql('analyze space_members, conversations, messages, message_tool_results, recall_events, feedback_events;');

    this.functions();
  }

  /** Every database function names the team in each statement, and enters the scope through rl_enter. */
  private functions(): void {
    this.addSql(`
create function rl_enter(p_team uuid, p_user uuid) returns void
language plpgsql volatile as $fn$
declare
  v_team uuid := rl_team();
  v_user uuid := rl_user();
begin
  -- A function that sets the scope from its own arguments may repeat it, or narrow a team-wide
  -- scope to one user; it may not move to another team or user (p_user null keeps the user as set).
  if p_team is null then
    raise exception 'a tenant scope names its team' using errcode = 'RL003';
  end if;
  if (v_team is not null and v_team <> p_team) or (p_user is not null and v_user is not null and v_user <> p_user) then
    raise exception 'the transaction''s tenant scope is already set to another team or user' using errcode = 'RL003';
  end if;
  perform set_config('app.team_id', p_team::text, true);
  if p_user is not null then
    perform set_config('app.user_id', p_user::text, true);
  end if;
end
$fn$;`);

    this.addSql('drop function actor_spaces(uuid, uuid);');
    this.addSql(`
create function actor_spaces(p_user uuid, p_team uuid) returns table (team_id uuid, space_id uuid, generation int)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user);
  return query
    select u.team_id, s.id, s.generation
      from users u
      left join space_members m on m.team_id = u.team_id and m.user_id = u.id
      left join spaces s on s.team_id = m.team_id and s.id = m.space_id and s.status = 'ACTIVE'
     where u.team_id = p_team and u.id = p_user
     order by s.id;
end
$fn$;`);

    // The read functions below join it; plain SQL, STABLE, so it is inlined with the team condition.
    this.addSql('drop function space_generations();');
    this.addSql(`
create function space_generations(p_team uuid) returns table (space_id uuid, generation int)
language sql stable as $fn$ select s.id, s.generation from spaces s where s.team_id = p_team $fn$;`);

    this.addSql('drop function tool_results_conversation_space(uuid, uuid[], uuid);');
    this.addSql(`
create function tool_results_conversation_space(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid)
returns table (space_id uuid) language sql stable as $fn$
  select c.space_id from conversations c
   where c.team_id = p_team and c.id = p_conversation_id and c.user_id = p_user_id and c.space_id = any(p_space_ids)
$fn$;`);

    this.addSql('drop function tool_results_recent(uuid, uuid[], uuid, integer, boolean, boolean);');
    this.addSql(`
create function tool_results_recent(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit integer,
                                    p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_ROW}, rank bigint) language sql stable as $fn$
  select ${SNAPSHOT_COLUMNS},
         row_number() over (order by r.created_at desc, r.id desc)
    from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
   where r.team_id = p_team and r.conversation_id = p_conversation_id and r.user_id = p_user_id
     and c.space_id = any(p_space_ids) and c.user_id = p_user_id
     and r.space_generation = (select sp.generation from conversations cs join space_generations(p_team) sp on sp.space_id = cs.space_id
                                where cs.team_id = p_team and cs.id = p_conversation_id)
   order by r.created_at desc, r.id desc
   limit p_limit
$fn$;`);

    this.addSql('drop function tool_results_search(uuid, uuid[], uuid, text, uuid, text, timestamptz, integer, boolean, boolean);');
    this.addSql(`
create function tool_results_search(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid,
                                    p_tool_name text, p_since timestamptz, p_limit integer, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_ROW}, score real, rank bigint) language sql stable as $fn$
  select ${SNAPSHOT_COLUMNS},
         ts_rank(r.search_vector, q.query) as score,
         row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
    from message_tool_results r
    join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
    cross join websearch_to_tsquery('simple', p_query) as q(query)
   where r.team_id = p_team and r.user_id = p_user_id and c.space_id = p_space_id and p_space_id = any(p_space_ids)
     and r.search_vector @@ q.query
     and r.space_generation = (select sp.generation from space_generations(p_team) sp where sp.space_id = p_space_id)
     and (p_conversation_id is null or r.conversation_id = p_conversation_id)
     and (p_tool_name is null or r.tool_name = p_tool_name)
     and (p_since is null or r.created_at >= p_since)
   order by rank
   limit p_limit
$fn$;`);

    this.addSql(`
create or replace function tool_results_path_value(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_mem_id text, p_keys text[], p_path jsonpath,
                                                   p_max_chars integer)
returns table (kind text, body text, body_length integer, complete boolean)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user_id);
  -- offset 0 fences each lateral: inlined, the large value would be decompressed once per reference.
  return query
    select v.kind, left(v.body, p_max_chars), length(v.body), length(v.body) <= p_max_chars
      from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
      join space_generations(p_team) s on s.space_id = c.space_id and s.generation = r.space_generation
     cross join lateral (
       select case when p_keys is not null
                   then coalesce(r.tool_output #> p_keys, case when jsonb_typeof(r.tool_output) = 'string' and left(ltrim(r.tool_output #>> '{}', E' \\t\\r\\n'), 1) in ('{', '[') then (r.tool_output #>> '{}')::jsonb #> p_keys end)
                   else coalesce(jsonb_path_query_first(r.tool_output, p_path),
                                 case when jsonb_typeof(r.tool_output) = 'string' and left(ltrim(r.tool_output #>> '{}', E' \\t\\r\\n'), 1) in ('{', '[') then jsonb_path_query_first((r.tool_output #>> '{}')::jsonb, p_path) end)
              end as value
       offset 0) selected
     cross join lateral (
       select jsonb_typeof(selected.value) as kind,
              case when jsonb_typeof(selected.value) = 'string' then selected.value #>> '{}' else selected.value::text end as body
       offset 0) v
     where r.team_id = p_team and r.user_id = p_user_id and c.space_id = any(p_space_ids) and r.mem_id = p_mem_id;
end
$fn$;`);

    // What a recall event's TOOL_RESULT refs may name: the user's own snapshots in the allowed
    // spaces at their current generation. A teammate's id, or a hidden one, names nothing.
    this.addSql('drop function tool_results_tool_names(uuid, uuid[]);');
    this.addSql(`
create function tool_results_tool_names(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_ids uuid[]) returns text[]
language sql stable as $fn$
  select coalesce(array_agg(distinct r.tool_name::text order by r.tool_name::text), '{}'::text[])
    from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
    join space_generations(p_team) s on s.space_id = c.space_id and s.generation = r.space_generation
   where r.team_id = p_team and r.user_id = p_user_id and c.space_id = any(p_space_ids) and r.id = any(p_ids)
$fn$;`);

    this.addSql(`
create or replace function tool_summary_rules_of(p_team uuid, p_tools text[]) returns table (tool_name text, rule jsonb)
language plpgsql as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, null);
  return query
    select r.tool_name, r.rule from tool_summary_rules r where r.team_id = p_team and r.tool_name = any(p_tools);
end
$fn$;`);

    this.addSql('drop function recall_events_recent_and_record(jsonb, jsonb, uuid, uuid[], uuid, integer, boolean, boolean);');
    this.addSql(`
create function recall_events_recent_and_record(p_event jsonb, p_generations jsonb, p_team uuid, p_user_id uuid, p_space_ids uuid[],
                                                p_conversation_id uuid, p_limit integer, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_ROW}, rank bigint)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
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
    recorded as (insert into recall_events (${EVENT_COLUMNS}, space_id, space_generation, results, tool_names)
                 select ${EVENT_COLUMNS.replace(/(\w+)/g, 'e.$1')}, conv.space_id, conv.generation,
                        (select coalesce(jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb) from hits h),
                        (select coalesce(array_agg(distinct h.tool_name::text order by h.tool_name::text), '{}'::text[]) from hits h)
                   from conv, jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select h.* from conv left join hits h on true order by h.rank;
end
$fn$;`);

    this.addSql(
      'drop function recall_events_search_and_record(jsonb, uuid, integer, uuid, uuid[], uuid, text, uuid, text, timestamptz, integer, boolean, boolean);',
    );
    this.addSql(`
create function recall_events_search_and_record(p_event jsonb, p_event_space_id uuid, p_event_generation integer, p_team uuid, p_user_id uuid,
                                                p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid, p_tool_name text,
                                                p_since timestamptz, p_limit integer, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_ROW}, score real, rank bigint)
language plpgsql set plan_cache_mode = force_custom_plan as $fn$
#variable_conflict use_column
begin
  if (p_event->>'team_id')::uuid is distinct from p_team then
    raise exception 'the event is of another team than the search' using errcode = 'RL003';
  end if;
  perform rl_enter(p_team, p_user_id);
  return query
    with hits as (select * from tool_results_search(p_team, p_user_id, p_space_ids, p_space_id, p_query, p_conversation_id, p_tool_name, p_since,
                                                    p_limit, p_with_input, p_with_output)),
    recorded as (insert into recall_events (${EVENT_COLUMNS}, space_id, space_generation, results, tool_names)
                 select ${EVENT_COLUMNS.replace(/(\w+)/g, 'e.$1')}, p_event_space_id, p_event_generation,
                        (select coalesce(jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb) from hits h),
                        (select coalesce(array_agg(distinct h.tool_name::text order by h.tool_name::text), '{}'::text[]) from hits h)
                   from jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select hits.* from hits order by hits.rank;
end
$fn$;`);

    this.addSql(`
create or replace function record_tool_results(p_team uuid, p_user uuid, p_conversation_ids uuid[], p_conversation_spaces uuid[], p_message_ids uuid[],
                                               p_message_conversations uuid[], p_snapshots jsonb, p_tool_use_ids text[], p_allowed_spaces uuid[],
                                               p_cap integer, p_compacted boolean)
returns table (id uuid, created_key text)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
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
  -- a time (earlier generations read as missing and wait for retention). EXECUTE plans with the
  -- values, as a client statement would be, so each walks the conversation's recency index.
  foreach v_conversation in array p_conversation_ids loop
    execute 'delete from message_tool_results where team_id = $4 and id in (select id from message_tool_results
               where team_id = $4 and conversation_id = $1 and user_id = $2
                 and space_generation = (select sp.generation from conversations c join space_generations($4) sp on sp.space_id = c.space_id
                                          where c.team_id = $4 and c.id = $1)
                 and not compacted order by created_at desc, id desc offset $3)'
      using v_conversation, p_user, p_cap, p_team;
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
$fn$;`);
  }

  override async down(): Promise<void> {
    // Once two teams use the same conversation, message or user id, the global keys cannot hold them.
    this.addSql(`do $do$ begin
  raise exception 'Migration20261202100000_team_keyed_schema cannot be reverted: restore the database from a backup taken before it';
end $do$;`);
  }
}
