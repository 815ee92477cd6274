import { Migration } from '@mikro-orm/migrations';

const SNAPSHOT_COLUMNS = `id uuid, mem_id varchar, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id varchar, tool_name varchar,
  size_chars int, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens int, compacted boolean,
  created_key text, tool_input jsonb, tool_output jsonb`;

/** The event's own columns, taken from `p_event` (a JSON object keyed by column name). */
const EVENT_COLUMNS = `team_id, id, profile_id, query_fingerprint, query_text, contract_version, ranking_version, fusion_mode,
  search_freshness, degraded_branches, semantic_groups, authored_alternatives, clarification_outcome, source`;
const EVENT_VALUES = `e.team_id, e.id, e.profile_id, e.query_fingerprint, e.query_text, e.contract_version, e.ranking_version, e.fusion_mode,
  e.search_freshness, e.degraded_branches, e.semantic_groups, e.authored_alternatives, e.clarification_outcome, e.source`;

/** The refs of a recall's snapshot rows (alias h, with their rank). */
const SNAPSHOT_REFS = `coalesce(jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb)`;
/** The distinct tool names of a recall's snapshot rows (alias h), sorted. */
const SNAPSHOT_TOOL_NAMES = `coalesce(array_agg(distinct h.tool_name::text order by h.tool_name::text), '{}'::text[])`;

/** Makes the tenant settings (R-TN-8) from the event's team and the reading user, for this transaction. */
const ENTER_SCOPE = `perform set_config('app.team_id', p_event->>'team_id', true), set_config('app.user_id', p_user_id::text, true);`;

const SEARCH_SIGNATURE =
  'recall_events_search_and_record(jsonb, uuid, int, uuid, uuid[], uuid, text, uuid, text, timestamptz, int, boolean, boolean)';
const RECENT_SIGNATURE = 'recall_events_recent_and_record(jsonb, jsonb, uuid, uuid[], uuid, int, boolean, boolean)';

/** A ref id that can name a snapshot (snapshot ids are UUIDs; an external retriever's may be anything). */
const UUID_TEXT = `'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`;

/**
 * The admin inspection of issue 23.
 *
 * - Recall events and feedback events keep the tool names of the snapshots a recall returned
 *   (`tool_names`: distinct, sorted), stored when the event is: a recall's refs can outlive their
 *   snapshots. Both read-and-record functions fill it from the rows they read; the existing rows
 *   are backfilled from the snapshots still present, and feedback events from their recall event.
 * - ToolResults' `tool_results_tool_names(team, ids)`: the sorted distinct tool names of the team's
 *   snapshots among these ids, for a recall event stored from refs alone (an external retriever's).
 * - Recall Events' `recall_events_visible(team)`: the team's events whose space is ACTIVE at the
 *   generation they were stored with (R-FB-8), so Feedback can list and count them without
 *   reading `recall_events` itself. Plain SQL, STABLE, not STRICT: inlined into the calling
 *   statement, which keeps walking the (team_id, created_at, id) index.
 *
 * Tenant settings and security as before: the new functions run as the caller, under the row-level
 * security of the tables they read (both already have their policies; the new columns need none).
 */
export class Migration20261201220000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "recall_events" add column "tool_names" text[] not null default '{}';`);
    this.addSql(`alter table "feedback_events" add column "tool_names" text[] not null default '{}';`);

    this.addSql(`
update recall_events e set tool_names = n.names
  from (select x.team_id, x.id, array_agg(distinct r.tool_name::text order by r.tool_name::text) as names
          from recall_events x
          cross join lateral jsonb_array_elements(x.results) as ref
          join message_tool_results r
            on r.team_id = x.team_id
           and r.id = case when ref->>'type' = 'TOOL_RESULT' and ref->>'id' ~ ${UUID_TEXT} then (ref->>'id')::uuid end
         group by x.team_id, x.id) n
 where e.team_id = n.team_id and e.id = n.id;`);
    this.addSql(`
update feedback_events f set tool_names = e.tool_names
  from recall_events e
 where e.team_id = f.team_id and e.id = f.recall_event_id and e.tool_names <> '{}';`);

    this.addSql(`
create function tool_results_tool_names(p_team uuid, p_ids uuid[]) returns text[]
language sql stable as $fn$
  select coalesce(array_agg(distinct r.tool_name::text order by r.tool_name::text), '{}'::text[])
    from message_tool_results r
   where r.team_id = p_team and r.id = any(p_ids)
$fn$;`);

    this.addSql(`
create function recall_events_visible(p_team uuid) returns setof recall_events
language sql stable as $fn$
  select e.* from recall_events e
    join active_spaces(p_team) s on s.space_id = e.space_id and s.generation = e.space_generation
   where e.team_id = p_team
$fn$;`);

    this.addSql(`
create or replace function recall_events_search_and_record(p_event jsonb, p_event_space_id uuid, p_event_generation int,
                                                p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid,
                                                p_tool_name text, p_since timestamptz, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, score real, rank bigint)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  ${ENTER_SCOPE}
  return query
    with hits as (select * from tool_results_search(p_user_id, p_space_ids, p_space_id, p_query, p_conversation_id, p_tool_name, p_since,
                                                    p_limit, p_with_input, p_with_output)),
    recorded as (insert into recall_events (${EVENT_COLUMNS}, space_id, space_generation, results, tool_names)
                 select ${EVENT_VALUES}, p_event_space_id, p_event_generation, (select ${SNAPSHOT_REFS} from hits h),
                        (select ${SNAPSHOT_TOOL_NAMES} from hits h)
                   from jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select hits.* from hits order by hits.rank;
end
$fn$;`);
    this.addSql(`
create or replace function recall_events_recent_and_record(p_event jsonb, p_generations jsonb,
                                                p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit int,
                                                p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, rank bigint)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  ${ENTER_SCOPE}
  return query
    with conv as (select s.space_id, (p_generations ->> s.space_id::text)::int as generation
                    from tool_results_conversation_space(p_user_id, p_space_ids, p_conversation_id) s),
    hits as (select * from tool_results_recent(p_user_id, p_space_ids, p_conversation_id, p_limit, p_with_input, p_with_output)),
    recorded as (insert into recall_events (${EVENT_COLUMNS}, space_id, space_generation, results, tool_names)
                 select ${EVENT_VALUES}, conv.space_id, conv.generation, (select ${SNAPSHOT_REFS} from hits h),
                        (select ${SNAPSHOT_TOOL_NAMES} from hits h)
                   from conv, jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select h.* from conv left join hits h on true order by h.rank;
end
$fn$;`);
    // create or replace resets the functions' settings: planned with their values, again.
    this.addSql(`alter function ${SEARCH_SIGNATURE} set plan_cache_mode = force_custom_plan;`);
    this.addSql(`alter function ${RECENT_SIGNATURE} set plan_cache_mode = force_custom_plan;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function recall_events_search_and_record(p_event jsonb, p_event_space_id uuid, p_event_generation int,
                                                p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid,
                                                p_tool_name text, p_since timestamptz, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, score real, rank bigint)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  ${ENTER_SCOPE}
  return query
    with hits as (select * from tool_results_search(p_user_id, p_space_ids, p_space_id, p_query, p_conversation_id, p_tool_name, p_since,
                                                    p_limit, p_with_input, p_with_output)),
    recorded as (insert into recall_events (${EVENT_COLUMNS}, space_id, space_generation, results)
                 select ${EVENT_VALUES}, p_event_space_id, p_event_generation, (select ${SNAPSHOT_REFS} from hits h)
                   from jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select hits.* from hits order by hits.rank;
end
$fn$;`);
    this.addSql(`
create or replace function recall_events_recent_and_record(p_event jsonb, p_generations jsonb,
                                                p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit int,
                                                p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, rank bigint)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  ${ENTER_SCOPE}
  return query
    with conv as (select s.space_id, (p_generations ->> s.space_id::text)::int as generation
                    from tool_results_conversation_space(p_user_id, p_space_ids, p_conversation_id) s),
    hits as (select * from tool_results_recent(p_user_id, p_space_ids, p_conversation_id, p_limit, p_with_input, p_with_output)),
    recorded as (insert into recall_events (${EVENT_COLUMNS}, space_id, space_generation, results)
                 select ${EVENT_VALUES}, conv.space_id, conv.generation, (select ${SNAPSHOT_REFS} from hits h)
                   from conv, jsonb_populate_record(null::recall_events, p_event) e
                 returning 1)
    select h.* from conv left join hits h on true order by h.rank;
end
$fn$;`);
    this.addSql(`alter function ${SEARCH_SIGNATURE} set plan_cache_mode = force_custom_plan;`);
    this.addSql(`alter function ${RECENT_SIGNATURE} set plan_cache_mode = force_custom_plan;`);
    this.addSql('drop function if exists recall_events_visible(uuid);');
    this.addSql('drop function if exists tool_results_tool_names(uuid, uuid[]);');
    this.addSql(`alter table "feedback_events" drop column "tool_names";`);
    this.addSql(`alter table "recall_events" drop column "tool_names";`);
  }
}
