import { Migration } from '@mikro-orm/migrations';

const APP_ROLE = 'recall_ledger_app';

const SIGNATURE = 'tool_results_search(uuid, uuid, uuid[], uuid, text, uuid, text, timestamptz, integer, boolean, boolean)';

const SNAPSHOT_ROW = `id uuid, mem_id character varying, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id character varying,
               tool_name character varying, size_chars integer, summary_oneliner text, schema_hint text, head_preview text, stub text,
               size_tokens integer, compacted boolean, created_key text, tool_input jsonb, tool_output jsonb`;

/** The snapshot's columns, with the two the function takes from the conversation (alias c). */
const SNAPSHOT_COLUMNS = `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
             r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
             to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key,
             case when p_with_input then r.tool_input end as tool_input, case when p_with_output then r.tool_output end as tool_output`;

/**
 * The conversation's user is tested on the ranked rows (the subquery's LIMIT keeps it out of the
 * scans): as a scan qualifier it made the planner start from the user's few conversations and test
 * each of their snapshots for the words, the plan this migration exists to leave. Snapshots are
 * written only into their user's own conversations, so the test removes nothing; it is there so the
 * function never returns a row the conversations' policy would hide.
 */
const SEARCH = `
    select h.id, h.mem_id, h.space_id, h.conversation_id, h.message_id, h.tool_use_id, h.tool_name, h.size_chars, h.summary_oneliner,
           h.schema_hint, h.head_preview, h.stub, h.size_tokens, h.compacted, h.created_key, h.tool_input, h.tool_output, h.score, h.rank
      from (
      select ${SNAPSHOT_COLUMNS}, c.user_id as conversation_user_id,
             ts_rank(r.search_vector, q.query) as score,
             row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
        from message_tool_results r
        join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
        cross join websearch_to_tsquery('simple', p_query) as q(query)
       where r.team_id = p_team and r.user_id = p_user_id
         and c.space_id = p_space_id and p_space_id = any(p_space_ids)
         and r.search_vector @@ q.query
         and r.space_generation = (select sp.generation from space_generations(p_team) sp where sp.space_id = p_space_id)
         and (p_conversation_id is null or r.conversation_id = p_conversation_id)
         and (p_tool_name is null or r.tool_name = p_tool_name)
         and (p_since is null or r.created_at >= p_since)
       order by rank
       limit p_limit) h
     where h.conversation_user_id = p_user_id
     order by h.rank`;

/**
 * The full-text search runs as the owner (issue 40). Under row-level security `@@` (ts_match_vq,
 * not leakproof) may not run before the policy's clauses, so it can never be an index condition:
 * the request role's plan walked every snapshot of the user in the space and tested each for the
 * words (3.5× raw at 1M). As the owner (policy `using (true)`) the words are a scan of the
 * (team_id, user_id, search_vector) GIN index.
 *
 * Isolation is kept by the function itself, not weakened. It enters its tenant scope as the other
 * read functions do (`rl_enter`: it refuses a team or user other than the one the transaction's
 * settings already name, RL003), and applies every predicate the policies would under that scope:
 * the team and the user on the snapshot and on its conversation (see SEARCH); and, as before, the allowed space
 * and the space's current generation. Only the request role may call it; a fixed search_path keeps
 * the definer's rights to this schema. PL/pgSQL with custom plans: the words' selectivity is
 * planned with their values, as the inlined SQL function was. Setting its own scope, a lone search
 * is one round trip (no transaction opened around it).
 */
export class Migration20261203130000_owner_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function tool_results_search(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text,
                                    p_conversation_id uuid, p_tool_name text, p_since timestamptz, p_limit integer, p_with_input boolean,
                                    p_with_output boolean)
returns table (${SNAPSHOT_ROW}, score real, rank bigint)
language plpgsql security definer set search_path = public, pg_temp set plan_cache_mode = force_custom_plan as $fn$
#variable_conflict use_column
begin
  perform rl_enter(p_team, p_user_id);
  return query${SEARCH};
end
$fn$;`);
    this.addSql(`revoke all on function ${SIGNATURE} from public;`);
    this.addSql(`grant execute on function ${SIGNATURE} to ${APP_ROLE};`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function ${SIGNATURE};`);
    this.addSql(`
create function tool_results_search(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid,
                                    p_tool_name text, p_since timestamptz, p_limit integer, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_ROW}, score real, rank bigint) language sql stable as $fn$
  select ${SNAPSHOT_COLUMNS.replace(/ as \w+/g, '')},
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
  }
}
