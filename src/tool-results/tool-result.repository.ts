import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { KeysetPosition } from '../common/pagination/keyset-cursor';
import type { StoredJson } from '../common/json/stored-json';
import { runSql } from '../database/run-sql';
import type { ReturnedSnapshotOwner } from './returned-snapshot';
import { recentArguments, searchArguments, type SnapshotScope, spaceIdsParam } from './snapshot-scope';
import {
  type SnapshotColumns,
  type SnapshotSearch,
  type SnapshotSearchHit,
  type ToolResultSnapshot,
  type ToolResultSnapshotRow,
  toSearchHit,
  toToolResultSnapshot,
} from './tool-result-snapshot';

export interface HistoryFilter {
  conversationId?: string | null;
  toolName?: string | null;
  since?: Date | null;
  until?: Date | null;
}

/**
 * Columns of a snapshot with its stored handle; the conversation join supplies the space. Aliases: r, c.
 * `measured.input`: the input's size instead of the input (the output's is stored as size_chars).
 */
function snapshotColumns(columns: SnapshotColumns, measured: SnapshotColumns = {}): string {
  return `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
  r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
  to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key${columns.input ? ', r.tool_input' : ''}${
    columns.output ? ', r.tool_output' : ''
  }${measured.input ? ', length(r.tool_input::text) as input_chars' : ''}`;
}

/** A snapshot's payloads, loaded by id after their size was reserved, as their stored text. */
export interface SnapshotPayloads {
  toolInput?: StoredJson;
  toolOutput?: StoredJson;
}

/**
 * Snapshots with their conversation (c) and the conversation's space's current generation (s, from
 * Tenancy's inlined `space_generations(team)`) joined at the snapshot's generation: a snapshot of an
 * earlier generation of its space (before a bump) is not there, as if missing (R-TN-4). Joined,
 * not a correlated subquery, so history keeps walking its index.
 */
export const SNAPSHOTS_FROM = `message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  join space_generations(c.team_id) s on s.space_id = c.space_id and s.generation = r.space_generation`;

/** The scope predicate over aliases r (message_tool_results) and c (conversations), with its bindings. */
export const SCOPE_PREDICATE = 'r.team_id = ? and r.user_id = ? and c.space_id = any(?::uuid[])';

export function scopeBindings(scope: SnapshotScope): [string, string, string] {
  return [scope.teamId, scope.userId, spaceIdsParam(scope)];
}

/**
 * Snapshot reads. Every statement carries the owner's user id and the allowed spaces
 * ({@link SnapshotScope}), in SQL, and sees only the current generation of each space. The
 * write path, JSON-path values and retention's deletes have repositories of their own beside this one.
 */
@Injectable()
export class ToolResultRepository {
  constructor(private readonly em: EntityManager) {}

  /** The scope's snapshots among these tool_use ids. */
  async findByToolUseIds(
    scope: SnapshotScope,
    toolUseIds: readonly string[],
    columns: SnapshotColumns = {},
    measured: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot[]> {
    return this.select(scope, 'r.tool_use_id in (?)', [toolUseIds], columns, measured);
  }

  async findById(
    scope: SnapshotScope,
    id: string,
    columns: SnapshotColumns = {},
    measured: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot | null> {
    return (await this.select(scope, 'r.id = ?', [id], columns, measured))[0] ?? null;
  }

  /**
   * The payloads of the scope's snapshots among these ids, by id: the second statement of a read
   * that returns payloads, run once their sizes fit the response budget. Same scope as every read;
   * a row deleted in between is simply absent.
   */
  async loadPayloads(scope: SnapshotScope, ids: readonly string[], columns: SnapshotColumns): Promise<Map<string, SnapshotPayloads>> {
    const payloads = new Map<string, SnapshotPayloads>();
    if (ids.length === 0 || (!columns.input && !columns.output)) return payloads;
    const rows = await runSql<{ id: string; tool_input?: StoredJson; tool_output?: StoredJson }[]>(
      this.em,
      `select r.id${columns.input ? ', r.tool_input' : ''}${columns.output ? ', r.tool_output' : ''} from ${SNAPSHOTS_FROM}
        where ${SCOPE_PREDICATE} and r.id = any(?::uuid[])`,
      [...scopeBindings(scope), `{${ids.join(',')}}`],
      { storedJson: true },
    );
    for (const row of rows) {
      const loaded: SnapshotPayloads = {};
      if (columns.input) loaded.toolInput = row.tool_input;
      if (columns.output) loaded.toolOutput = row.tool_output;
      payloads.set(row.id, loaded);
    }
    return payloads;
  }

  /** The scope's snapshot with this mem id, or null for a missing one, another user's or one outside the allowed spaces (R-LG-2). */
  async findByMemId(scope: SnapshotScope, memId: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    return (await this.select(scope, 'r.mem_id = ?', [memId], columns))[0] ?? null;
  }

  /**
   * As {@link findByMemId}, with the output loaded only when the snapshot has at most `maxChars`
   * characters (size_chars), or, with `strings`, when it is a string (its text is read in place):
   * one statement whether it is loaded or not.
   */
  async findByMemIdWithSmallOutput(
    scope: SnapshotScope,
    memId: string,
    maxChars: number,
    { strings = false }: { strings?: boolean } = {},
  ): Promise<ToolResultSnapshot | null> {
    const loaded = `r.size_chars <= ?${strings ? " or jsonb_typeof(r.tool_output) = 'string'" : ''}`;
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      `select ${snapshotColumns({})}, case when ${loaded} then r.tool_output end as tool_output from ${SNAPSHOTS_FROM}
        where ${SCOPE_PREDICATE} and r.mem_id = ?`,
      [maxChars, ...scopeBindings(scope), memId],
      { storedJson: true },
    );
    if (rows.length === 0) return null;
    return toToolResultSnapshot(rows[0], { output: rows[0].tool_output != null });
  }

  /**
   * The owner's snapshots among these ids (UUIDs) in one space, at one generation, of the team:
   * what a recall event of that owner can still show. The caller reads team-wide (the owner may
   * be another member than the reader); the payloads are never loaded.
   */
  async findReturned(teamId: string, owner: ReturnedSnapshotOwner, ids: readonly string[]): Promise<ToolResultSnapshot[]> {
    if (ids.length === 0) return [];
    return this.select(
      { teamId, userId: owner.userId, spaceIds: [owner.spaceId] },
      'r.space_generation = ? and r.id in (?)',
      [owner.spaceGeneration, ids],
      {},
    );
  }

  private async select(
    scope: SnapshotScope,
    where: string,
    params: unknown[],
    columns: SnapshotColumns,
    measured: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot[]> {
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      `select ${snapshotColumns(columns, measured)} from ${SNAPSHOTS_FROM}
        where ${SCOPE_PREDICATE} and ${where}`,
      [...scopeBindings(scope), ...params],
      { storedJson: true },
    );
    return rows.map((row) => toToolResultSnapshot(row, columns));
  }

  /**
   * The K most recent snapshots of the user's own conversation, newest first; none when the
   * conversation is someone else's or outside the allowed spaces. The user predicate and the
   * current generation are part of the index (conversation_id, user_id, space_generation,
   * created_at desc, id desc): K rows are read (R-RC-6).
   */
  async recentInConversation(
    scope: SnapshotScope,
    conversationId: string,
    limit: number,
    columns: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot[]> {
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      'select * from tool_results_recent(?::uuid, ?::uuid, ?::uuid[], ?::uuid, ?, ?, ?) order by rank',
      recentArguments(scope, conversationId, limit, columns),
      { storedJson: true },
    );
    return rows.map((row) => toToolResultSnapshot(row, columns));
  }

  /**
   * The full-text search over the scope's snapshots in one space, ranked (R-RC-8; see
   * `tool_results_search`, which runs as the owner to use the GIN index and enters the scope itself).
   */
  async search(scope: SnapshotScope, search: SnapshotSearch, columns: SnapshotColumns = {}): Promise<SnapshotSearchHit[]> {
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      'select * from tool_results_search(?::uuid, ?::uuid, ?::uuid[], ?::uuid, ?, ?::uuid, ?, ?::timestamptz, ?, ?, ?) order by rank',
      searchArguments(scope, search, columns),
      { setsOwnScope: true, storedJson: true },
    );
    return rows.map((row) => toSearchHit(row, columns));
  }

  /** Newest first, keyset-paginated on (created_at, id). */
  async history(
    scope: SnapshotScope,
    filter: HistoryFilter,
    after: KeysetPosition | null,
    limit: number,
    columns: SnapshotColumns = {},
    measured: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot[]> {
    const where = ['r.team_id = ? and r.user_id = ?'];
    const params: unknown[] = [spaceIdsParam(scope), scope.teamId, scope.userId];
    if (filter.conversationId) {
      where.push('r.conversation_id = ?');
      params.push(filter.conversationId);
    }
    if (filter.toolName) {
      where.push('r.tool_name = ?');
      params.push(filter.toolName);
    }
    if (filter.since) {
      where.push('r.created_at >= ?');
      params.push(filter.since.toISOString());
    }
    if (filter.until) {
      where.push('r.created_at < ?');
      params.push(filter.until.toISOString());
    }
    if (after) {
      where.push('(r.created_at, r.id) < (?::timestamptz, ?::uuid)');
      params.push(after.createdAt, after.id);
    }
    // The user's snapshots newest first off the (team_id, user_id, created_at desc, id desc) index,
    // each checked against its conversation's space and generation until the page is full. The
    // lateral is fenced (offset 0), so the planner cannot turn it into a join that reads every
    // conversation of the space and sorts the user's snapshots: under the row-level security policies it misjudged
    // those (one row a conversation) and took that plan on some data.
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      `select ${snapshotColumns(columns, measured)} from message_tool_results r
        cross join lateral (select c.space_id from conversations c join space_generations(c.team_id) s on s.space_id = c.space_id
                             where c.team_id = r.team_id and c.id = r.conversation_id and s.generation = r.space_generation
                               and c.space_id = any(?::uuid[])
                             offset 0) c
        where ${where.join(' and ')}
        order by r.created_at desc, r.id desc
        limit ?`,
      [...params, limit],
      { storedJson: true },
    );
    return rows.map((row) => toToolResultSnapshot(row, columns));
  }
}
