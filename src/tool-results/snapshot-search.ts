import { type SnapshotColumns, snapshotColumns } from './snapshot-record';
import { spaceIdsParam, type SnapshotScope } from './snapshot-scope';

/** PostgreSQL's `simple` configuration: no stemming, no stop words (see the README). */
export const SEARCH_CONFIG = 'simple';

export interface SnapshotSearch {
  /** A space of the scope's allowed set. */
  spaceId: string;
  /**
   * Words, `or`, `-word` (websearch syntax); "quoted phrases" match in the tool name and input,
   * while the output's words are stored without positions and match as words.
   */
  query: string;
  conversationId?: string | null;
  toolName?: string | null;
  since?: Date | null;
  limit: number;
}

export interface SqlStatement {
  sql: string;
  params: unknown[];
}

/**
 * The full-text search over the scope's snapshots in one space (R-RC-8), as a statement another
 * module can run as is or compose (Recall records its event in the same round trip). Rows carry
 * the snapshot columns, `score` (ts_rank) and `rank` (from 1); ties go to the newer snapshot.
 */
export function snapshotSearchStatement(scope: SnapshotScope, search: SnapshotSearch, columns: SnapshotColumns = {}): SqlStatement {
  // The scope as a constant check on the one space searched: `c.space_id = any(…) and c.space_id = ?`
  // would make the planner multiply two selectivities of one column and skip the search index.
  const where = ['r.user_id = ?', 'c.space_id = ?', '?::uuid = any(?::uuid[])', 'r.search_vector @@ q.query'];
  const params: unknown[] = [search.query, scope.userId, search.spaceId, search.spaceId, spaceIdsParam(scope)];
  if (search.conversationId) {
    where.push('r.conversation_id = ?');
    params.push(search.conversationId);
  }
  if (search.toolName) {
    where.push('r.tool_name = ?');
    params.push(search.toolName);
  }
  if (search.since) {
    where.push('r.created_at >= ?');
    params.push(search.since.toISOString());
  }
  const sql = `select ${snapshotColumns(columns)}, ts_rank(r.search_vector, q.query) as score,
      row_number() over (order by ts_rank(r.search_vector, q.query) desc, r.created_at desc, r.id desc) as rank
    from message_tool_results r
    join conversations c on c.id = r.conversation_id
    cross join websearch_to_tsquery('${SEARCH_CONFIG}', ?) as q(query)
    where ${where.join(' and ')}
    order by rank
    limit ?`;
  return { sql, params: [...params, search.limit] };
}
