import { Migration } from '@mikro-orm/migrations';

const RECENT_SIGNATURE = 'recall_events_recent_and_record(jsonb, jsonb, uuid, uuid[], uuid, int, boolean, boolean)';
const PATH_VALUE_SIGNATURE = 'tool_results_path_value(uuid, uuid, uuid[], text, text[], jsonpath, int)';

/** A text output holding JSON (alias r): read as the JSON it holds. */
const OUTPUT_IS_JSON_TEXT = `jsonb_typeof(r.tool_output) = 'string' and left(ltrim(r.tool_output #>> '{}', E' \\t\\r\\n'), 1) in ('{', '[')`;

/**
 * Performance, third pass (issue 25): the plans of two hot reads are kept per connection.
 *
 * - `recall_events_recent_and_record` (recallBlock) was planned with its values on every call
 *   (`force_custom_plan`): pg_stat_statements showed 1.4 ms of planning against 0.4 ms of
 *   execution at one client, 3.5 ms at sixteen. Its read is a conversation's top K by an
 *   equality on the conversation and the user, the same index walk whatever the values; the
 *   generic plan walks it too (pinned in recall-event-plans.spec.ts). The search function keeps
 *   its custom plans: a search's cost depends on its words.
 * - `tool_results_path_value` is the dotted and the singular json_path read as a function that
 *   makes the tenant settings itself (R-TN-8), as `actor_spaces` does: one round trip instead of
 *   begin-and-settings, the statement and commit, and a plan kept per connection instead of
 *   ~1 ms of planning a call (the laterals and the policies). `p_keys` (a dotted path's keys) or
 *   `p_path` (a SQL/JSON path) selects the value; the node-list read keeps its own statement,
 *   which needs a transaction anyway for its timeout.
 */
export class Migration20261202000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter function ${RECENT_SIGNATURE} set plan_cache_mode = force_generic_plan;`);
    this.addSql(`
create function tool_results_path_value(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_mem_id text, p_keys text[], p_path jsonpath,
                                        p_max_chars int)
returns table (kind text, body text, body_length int, complete boolean)
language plpgsql volatile as $fn$
#variable_conflict use_column
begin
  perform set_config('app.team_id', p_team::text, true), set_config('app.user_id', p_user_id::text, true);
  -- offset 0 fences each lateral: inlined, the large value would be decompressed once per reference.
  return query
    select v.kind, left(v.body, p_max_chars), length(v.body), length(v.body) <= p_max_chars
      from message_tool_results r join conversations c on c.id = r.conversation_id
      join space_generations() s on s.space_id = c.space_id and s.generation = r.space_generation
     cross join lateral (
       select case when p_keys is not null
                   then coalesce(r.tool_output #> p_keys, case when ${OUTPUT_IS_JSON_TEXT} then (r.tool_output #>> '{}')::jsonb #> p_keys end)
                   else coalesce(jsonb_path_query_first(r.tool_output, p_path),
                                 case when ${OUTPUT_IS_JSON_TEXT} then jsonb_path_query_first((r.tool_output #>> '{}')::jsonb, p_path) end)
              end as value
       offset 0) selected
     cross join lateral (
       select jsonb_typeof(selected.value) as kind,
              case when jsonb_typeof(selected.value) = 'string' then selected.value #>> '{}' else selected.value::text end as body
       offset 0) v
     where r.user_id = p_user_id and c.space_id = any(p_space_ids) and r.mem_id = p_mem_id;
end
$fn$;`);
    this.addSql(`alter function ${PATH_VALUE_SIGNATURE} set plan_cache_mode = force_generic_plan;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists ${PATH_VALUE_SIGNATURE};`);
    this.addSql(`alter function ${RECENT_SIGNATURE} set plan_cache_mode = force_custom_plan;`);
  }
}
