import { type SnapshotColumns, snapshotColumns } from './snapshot-record';
import { SCOPE_PREDICATE, scopeBindings, type SnapshotScope } from './snapshot-scope';

/** PostgreSQL's `simple` configuration: no stemming, no stop words (see the README). */
export const SEARCH_CONFIG = 'simple';

export interface SnapshotSearch {
  /** A space of the scope's allowed set. */
  spaceId: string;
  /** Words, "quoted phrases", `or`, `-word` (websearch syntax). */
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
  const where = [SCOPE_PREDICATE, 'c.space_id = ?', 'r.search_vector @@ q.query'];
  const params: unknown[] = [search.query, ...scopeBindings(scope), search.spaceId];
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
