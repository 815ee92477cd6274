import { Migration } from '@mikro-orm/migrations';

const BLOCK_SIGNATURE = 'recall_block_for_token(jsonb, uuid, uuid, timestamptz, uuid, integer, boolean, boolean)';
const PATH_SIGNATURE = 'tool_results_path_value_for_token(uuid, uuid, timestamptz, text, text[], jsonpath, integer)';

const SNAPSHOT_ROW = `id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying,
               tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text,
               size_tokens integer, compacted boolean, created_key text, tool_input jsonb, tool_output jsonb, rank bigint`;

/** A row of nothing: RETURN QUERY takes only the declared types. */
function typedNulls(row: string): string {
  return row
    .split(',')
    .map((column) => `null::${column.trim().split(/\s+/).slice(1).join(' ')}`)
    .join(', ');
}

/** The token's user and its allowed spaces, read with the guard's own `actor_spaces` (tenant settings, RL004). */
const READ_ACTOR = `
  select count(*) > 0,
         coalesce(array_agg(a.space_id order by a.space_id) filter (where a.space_id is not null), '{}'),
         coalesce(array_agg(a.generation order by a.space_id) filter (where a.space_id is not null), '{}')
    into v_known, v_space_ids, v_generations
    from actor_spaces(p_user_id, p_team, p_issued_at) a;`;

/**
 * Hot reads resolve their actor in their own statement (issue 40): the request's one round trip
 * reads the token's user and its allowed spaces with `actor_spaces` — the guard's statement, with
 * its tombstone check (RL004) and its tenant settings — and hands them to the statement the
 * operation ran after the guard's until now: `recall_events_recent_and_record` (recallBlock) and
 * `tool_results_path_value` (a JSONPath's single value).
 *
 * `actor_status` says which case the row is: 'new' (the token's user does not exist yet in its
 * team: nothing was read or stored; the caller provisions it and reads the usual way), 'missing'
 * (the inner statement found nothing of the user's in an allowed space: nothing stored), 'ok' (the
 * inner statement's rows, as it gives them). Every row carries the allowed spaces and their
 * generations, so the request's actor is built from this statement as the guard would build it.
 */
export class Migration20261203160000_actor_in_statement extends Migration {
  override up(): void {
    this.addSql(
      readingItsActor({
        name: 'recall_block_for_token',
        parameters: `p_event jsonb, p_user_id uuid, p_team uuid, p_issued_at timestamptz, p_conversation_id uuid,
                     p_limit integer, p_with_input boolean, p_with_output boolean`,
        row: SNAPSHOT_ROW,
        inner: `recall_events_recent_and_record(p_event,
             (select coalesce(jsonb_object_agg(s, g), '{}'::jsonb) from unnest(v_space_ids, v_generations) as t(s, g)),
             p_team, p_user_id, v_space_ids, p_conversation_id, p_limit, p_with_input, p_with_output)`,
      }),
    );
    this.addSql(
      readingItsActor({
        name: 'tool_results_path_value_for_token',
        parameters: `p_user_id uuid, p_team uuid, p_issued_at timestamptz, p_mem_id text, p_keys text[], p_path jsonpath, p_max_chars integer`,
        row: 'kind text, body text, body_length integer, complete boolean',
        inner: 'tool_results_path_value(p_team, p_user_id, v_space_ids, p_mem_id, p_keys, p_path, p_max_chars)',
      }),
    );
  }

  override down(): void {
    this.addSql(`drop function ${PATH_SIGNATURE};`);
    this.addSql(`drop function ${BLOCK_SIGNATURE};`);
  }
}

/** A function that reads the token's actor (READ_ACTOR), then runs `inner` with its spaces; see the class comment. */
function readingItsActor(fn: { name: string; parameters: string; row: string; inner: string }): string {
  const nothing = typedNulls(fn.row);
  return `
create function ${fn.name}(${fn.parameters})
returns table (actor_status text, actor_space_ids uuid[], actor_generations integer[], ${fn.row})
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  v_known boolean;
  v_space_ids uuid[];
  v_generations integer[];
begin
${READ_ACTOR}
  if not v_known then
    return query select 'new'::text, v_space_ids, v_generations, ${nothing};
    return;
  end if;
  return query select 'ok'::text, v_space_ids, v_generations, inner_rows.* from ${fn.inner} inner_rows;
  if not found then
    return query select 'missing'::text, v_space_ids, v_generations, ${nothing};
  end if;
end
$$;`;
}
