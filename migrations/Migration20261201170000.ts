import { Migration } from '@mikro-orm/migrations';

const SNAPSHOT_COLUMNS = `id uuid, mem_id varchar, space_id uuid, conversation_id uuid, message_id uuid, tool_use_id varchar, tool_name varchar,
  size_chars int, summary_oneliner text, schema_hint text, head_preview text, stub text, size_tokens int, compacted boolean,
  created_key text, tool_input jsonb, tool_output jsonb`;

const SELECT_SNAPSHOT = `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
         r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
         to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
         case when p_with_input then r.tool_input end, case when p_with_output then r.tool_output end`;

/**
 * ToolResults' reads that a module above it runs inside a statement of its own (Recall Events
 * stores the event of a recall in the same round trip as the read): the scoped "newest of a
 * conversation", the full-text search and the actor's conversation's space. They are plain SQL,
 * STABLE and not STRICT, so PostgreSQL inlines them into the calling statement and plans them
 * with the caller's values, exactly as if their text stood there; the callers pass typed
 * arguments, never SQL. A snapshot is the user's own in one of `p_space_ids` or not returned.
 * The payload columns are null unless asked for (they can be megabytes).
 */
export class Migration20261201170000 extends Migration {
  override async up(): Promise<void> {
    // Newest first, each with its rank from 1; the user predicate is part of the index
    // (conversation_id, user_id, created_at desc, id desc): K rows are read (R-RC-6).
    this.addSql(`
create function tool_results_recent(p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid, p_limit int, p_with_input boolean, p_with_output boolean)
returns table (${SNAPSHOT_COLUMNS}, rank bigint)
language sql stable as $fn$
  select ${SELECT_SNAPSHOT},
         row_number() over (order by r.created_at desc, r.id desc)
    from message_tool_results r join conversations c on c.id = r.conversation_id
   where r.conversation_id = p_conversation_id and r.user_id = p_user_id and c.space_id = any(p_space_ids) and c.user_id = p_user_id
   order by r.created_at desc, r.id desc
   limit p_limit
$fn$;`);
    // R-RC-8, PostgreSQL's 'simple' configuration. The scope is a constant check on the one space
    // searched: \`c.space_id = any(…) and c.space_id = …\` would make the planner multiply two
    // selectivities of one column and skip the search index. Ties go to the newer snapshot.
    this.addSql(`
create function tool_results_search(p_user_id uuid, p_space_ids uuid[], p_space_id uuid, p_query text, p_conversation_id uuid, p_tool_name text,
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
    // The space of the user's own conversation, when it is one of p_space_ids; no row otherwise.
    this.addSql(`
create function tool_results_conversation_space(p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid)
returns table (space_id uuid)
language sql stable as $fn$
  select c.space_id from conversations c where c.id = p_conversation_id and c.user_id = p_user_id and c.space_id = any(p_space_ids)
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function if exists tool_results_recent(uuid, uuid[], uuid, int, boolean, boolean);');
    this.addSql('drop function if exists tool_results_search(uuid, uuid[], uuid, text, uuid, text, timestamptz, int, boolean, boolean);');
    this.addSql('drop function if exists tool_results_conversation_space(uuid, uuid[], uuid);');
  }
}
