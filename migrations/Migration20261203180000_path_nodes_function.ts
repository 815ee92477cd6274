import { Migration } from '@mikro-orm/migrations';

const NAME = 'tool_results_path_nodes';
const SIGNATURE = `${NAME}(uuid, uuid, uuid[], text, jsonpath, integer, integer)`;

/** A node list of `source` as one JSON array, at most `p_cap` nodes. */
const nodeListOf = (source: string) =>
  `(select coalesce(jsonb_agg(n), '[]'::jsonb) from (select n from jsonb_path_query(${source}, p_path) n limit p_cap) q)`;

/**
 * A JSONPath's node list (a filter, a wildcard, a descent) in a function of its own, as a single
 * value is in `tool_results_path_value`: its plan is kept per connection instead of made per call
 * (the policies and `space_generations` took ~1 ms to plan). Measured as the request role on the
 * 363 KB bench payload: the statement planned per call took 4.4 ms and ~200 page faults of the
 * server process a call (memory given back to the system and taken again each call), the
 * function 0.9 ms and none.
 *
 * The output is read once: a text output that holds JSON is read as JSON only when the output
 * itself gives no node. A node list (children, descendants) of a string root is always empty, and
 * the translated path raises no error on it (sql-json-path.ts guards every step), so the answer
 * is the same as reading the text first; every further reference to the large value in the row
 * would decompress it again.
 *
 * Called in the caller's transaction, after its statement timeout is set: the timeout bounds it.
 */
export class Migration20261203180000_path_nodes_function extends Migration {
  override up(): void {
    this.addSql(`
create function ${NAME}(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_mem_id text, p_path jsonpath,
                                         p_cap integer, p_max_chars integer)
returns table (kind text, body text, body_length integer, complete boolean, items integer)
language plpgsql set plan_cache_mode = force_generic_plan as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user_id);
  -- offset 0 fences each lateral: inlined, the large value would be decompressed once per reference.
  return query
    select v.kind, left(v.body, p_max_chars), length(v.body), length(v.body) <= p_max_chars,
           case when v.kind = 'array' then jsonb_array_length(selected.value) end
      from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
      join space_generations(p_team) s on s.space_id = c.space_id and s.generation = r.space_generation
     cross join lateral (select ${nodeListOf('r.tool_output')} as value offset 0) own
     cross join lateral (
       select case when own.value = '[]'::jsonb and jsonb_typeof(r.tool_output) = 'string'
                        and left(ltrim(r.tool_output #>> '{}', E' \\t\\r\\n'), 1) in ('{', '[')
                   then ${nodeListOf(`(r.tool_output #>> '{}')::jsonb`)}
                   else own.value end as value
       offset 0) selected
     cross join lateral (
       select jsonb_typeof(selected.value) as kind,
              case when jsonb_typeof(selected.value) = 'string' then selected.value #>> '{}' else selected.value::text end as body
       offset 0) v
     where r.team_id = p_team and r.user_id = p_user_id and c.space_id = any(p_space_ids) and r.mem_id = p_mem_id;
end
$fn$;`);
  }

  override down(): void {
    this.addSql(`drop function ${SIGNATURE};`);
  }
}
