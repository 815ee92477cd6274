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

/** Makes the tenant settings (R-TN-8) from the event's team and the reading user, for this transaction. */
const ENTER_SCOPE = `perform set_config('app.team_id', p_event->>'team_id', true), set_config('app.user_id', p_user_id::text, true);`;

/**
 * Recall Events' two read-and-record statements as functions, so that they make the request's
 * tenant settings themselves and stay one round trip under row-level security (a lone statement
 * would otherwise need a transaction of its own around it). The statements are the ones the
 * repository ran: ToolResults' inlined `tool_results_search` / `tool_results_recent` read the
 * snapshots, and a data-modifying CTE stores the event of what was read. Each call is planned with
 * its values (`force_custom_plan`), as the client's statement was.
 */
export class Migration20261201181100 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function recall_events_search_and_record(p_event jsonb, p_event_space_id uuid, p_event_generation int,
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
    // The event goes to the conversation's space at the generation the actor holds for it
    // (p_generations: the allowed spaces' generations by id). No row: the conversation is not the
    // user's in an allowed space, and nothing is stored; a row with a null id: no snapshot.
    this.addSql(`
create function recall_events_recent_and_record(p_event jsonb, p_generations jsonb,
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
    this.addSql(
      'alter function recall_events_search_and_record(jsonb, uuid, int, uuid, uuid[], uuid, text, uuid, text, timestamptz, int, boolean, boolean) set plan_cache_mode = force_custom_plan;',
    );
    this.addSql(
      'alter function recall_events_recent_and_record(jsonb, jsonb, uuid, uuid[], uuid, int, boolean, boolean) set plan_cache_mode = force_custom_plan;',
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop function if exists recall_events_search_and_record(jsonb, uuid, int, uuid, uuid[], uuid, text, uuid, text, timestamptz, int, boolean, boolean);',
    );
    this.addSql('drop function if exists recall_events_recent_and_record(jsonb, jsonb, uuid, uuid[], uuid, int, boolean, boolean);');
  }
}
