import { arrayLiteral, countChanged, inTransactionWithTimeout, runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { KeysetPosition } from '../common/pagination/keyset-cursor';
import type { JsonSelection, PathLookup, PathValue } from './path-value';
import type { ReturnedSnapshotOwner } from './returned-snapshot';
import { readJsonText } from '../common/text/json-text';
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

/** A snapshot about to be written: its handle built (R-LG-1), its payloads serialized once by the caller. */
export type UnsavedSnapshot = Omit<ToolResultSnapshot, 'spaceId' | 'createdAt' | 'createdKey'> & {
  toolInput: unknown;
  toolOutput: unknown;
  toolInputJson: string;
  toolOutputJson: string;
  createdAt?: Date | null;
};

export interface HistoryFilter {
  conversationId?: string | null;
  toolName?: string | null;
  since?: Date | null;
  until?: Date | null;
}

/** invalid_text_representation, untranslatable_character: the ::jsonb cast refused the text. */
const NOT_JSON_SQLSTATES = new Set(['22P02', '22P05']);

function isNotJsonText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NOT_JSON_SQLSTATES.has(code);
}

/** query_canceled: here, the statement timeout of a node-list evaluation. */
function isCanceledByTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}

interface PathRow {
  kind: string | null;
  body: string | null;
  body_length: number | null;
  complete: boolean | null;
  items?: number | null;
}

/** The selected value of a snapshot's row; null when nothing is there. */
function pathValueOf(row: PathRow): PathValue | null {
  if (row.kind === null || row.body === null) return null;
  return { kind: row.kind, body: row.body, bodyLength: Number(row.body_length), complete: row.complete === true };
}

/** A text output that looks like JSON (so plain text never reaches the cast); malformed text fails the cast, answered as not JSON. */
const OUTPUT_IS_JSON_TEXT = `jsonb_typeof(r.tool_output) = 'string' and left(ltrim(r.tool_output #>> '{}', E' \\t\\r\\n'), 1) in ('{', '[')`;
const OUTPUT_AS_JSON = `case when ${OUTPUT_IS_JSON_TEXT} then (r.tool_output #>> '{}')::jsonb else r.tool_output end`;

/**
 * A node list over alias r, as one JSON array, one node past the cap (which tells "too many" from
 * "exactly the cap"); the output is read as JSON first, so it is never null. (A single value is
 * `tool_results_path_value`'s, which reads a text output as JSON only when the JSON finds nothing.)
 */
const NODE_LIST = `(select coalesce(jsonb_agg(n), '[]'::jsonb) from (select n from jsonb_path_query(${OUTPUT_AS_JSON}, ?::jsonpath) n limit ?) q)`;

/** Columns of a snapshot with its stored handle; the conversation join supplies the space. Aliases: r, c. */
function snapshotColumns(columns: SnapshotColumns): string {
  return `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
  r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
  to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key${columns.input ? ', r.tool_input' : ''}${
    columns.output ? ', r.tool_output' : ''
  }`;
}

/**
 * Snapshots with their conversation (c) and the conversation's space's current generation (s, from
 * Tenancy's inlined `space_generations()`) joined at the snapshot's generation: a snapshot of an
 * earlier generation of its space (before a bump) is not there, as if missing (R-TN-4). Joined,
 * not a correlated subquery, so history keeps walking its index.
 */
const SNAPSHOTS_FROM = `message_tool_results r join conversations c on c.id = r.conversation_id
  join space_generations() s on s.space_id = c.space_id and s.generation = r.space_generation`;

/** The scope predicate over aliases r (message_tool_results) and c (conversations), with its bindings. */
const SCOPE_PREDICATE = 'r.user_id = ? and c.space_id = any(?::uuid[])';

function scopeBindings(scope: SnapshotScope): [string, string] {
  return [scope.userId, spaceIdsParam(scope)];
}

/**
 * The batch as one JSON array for `record_tool_results`. The payloads go in as the JSON text the
 * caller already measured, not parsed and serialized again.
 */
function snapshotsJson(snapshots: readonly UnsavedSnapshot[]): string {
  const text = (value: string | null | undefined) => JSON.stringify(value ?? null);
  const items = snapshots.map(
    (s) =>
      `{"id":${text(s.id)},"message_id":${text(s.messageId)},"conversation_id":${text(s.conversationId)},"tool_name":${text(s.toolName)},` +
      `"tool_input":${s.toolInputJson},"tool_output":${s.toolOutputJson},"created_at":${text(s.createdAt?.toISOString())},` +
      `"tool_use_id":${text(s.toolUseId)},"mem_id":${text(s.memId)},"size_chars":${s.sizeChars},"summary_oneliner":${text(s.handle.summaryOneliner)},` +
      `"schema_hint":${text(s.handle.schemaHint)},"head_preview":${text(s.handle.headPreview)},"stub":${text(s.handle.stub)},"size_tokens":${s.handle.sizeTokens}}`,
  );
  return `[${items.join(',')}]`;
}

/**
 * Snapshots. Every statement carries the owner's user id: a row of another user is never read,
 * locked, written or deleted through here. Every read also carries the allowed spaces
 * ({@link SnapshotScope}), in SQL, and sees only the current generation of each space.
 */
@Injectable()
export class ToolResultRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * The write path in one round trip (the `record_tool_results` function, current body in schema.sql):
   * creates the missing conversations and messages, locks the user's own conversations in id
   * order, checks that every conversation and message of the batch is the user's (else SQLSTATE
   * RL001), inserts the snapshots whose tool_use_id is new, trims each conversation to `cap`
   * uncompacted snapshots, and checks that a repeated tool_use_id is readable in the allowed
   * spaces (else RL002); a refusal names the offending row in the error's detail. Either all of
   * it happens or none. Each snapshot is stamped with the writer's team and its space's current
   * generation; a tool_use_id is new when the user has none in that generation. Returns the
   * inserted rows' ids and times; the payloads are not sent back. The function makes the
   * request's tenant settings itself (row-level security), so this stays one round trip.
   */
  async recordBatch(
    scope: SnapshotScope & { readonly teamId: string },
    conversations: readonly { id: string; spaceId: string }[],
    messages: readonly { id: string; conversationId: string }[],
    snapshots: readonly UnsavedSnapshot[],
    options: { cap: number; compacted: boolean },
  ): Promise<{ id: string; createdKey: string }[]> {
    const rows = await runSql<{ id: string; created_key: string }[]>(
      this.em,
      `select id, created_key from record_tool_results(?::uuid, ?::uuid, array[?]::uuid[], array[?]::uuid[], array[?]::uuid[], array[?]::uuid[], ?::jsonb,
                                                       array[?]::text[], ?::uuid[], ?::int, ?::boolean)`,
      [
        scope.teamId,
        scope.userId,
        conversations.map((c) => c.id),
        conversations.map((c) => c.spaceId),
        messages.map((m) => m.id),
        messages.map((m) => m.conversationId),
        snapshotsJson(snapshots),
        [...new Set(snapshots.map((s) => s.toolUseId))],
        spaceIdsParam(scope),
        options.cap,
        options.compacted,
      ],
      // The function makes the tenant settings from p_team/p_user itself: one round trip (R-TN-8).
      { setsOwnScope: true },
    );
    return rows.map((r) => ({ id: r.id, createdKey: r.created_key }));
  }

  /**
   * Sets the compacted mark of the user's snapshots (a stub handed out exempts them from the cap);
   * returns the ids whose mark this statement changed, so a caller learns which rows still exist.
   */
  async setCompacted(userId: string, ids: readonly string[], compacted: boolean): Promise<string[]> {
    const rows = await runSql<{ id: string }[]>(
      this.em,
      `update message_tool_results set compacted = ? where user_id = ? and id in (?) and compacted <> ? returning id`,
      [compacted, userId, ids, compacted],
    );
    return rows.map((r) => r.id);
  }

  /** The scope's snapshots among these tool_use ids. */
  async findByToolUseIds(
    scope: SnapshotScope,
    toolUseIds: readonly string[],
    columns: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot[]> {
    return this.select(scope, 'r.tool_use_id in (?)', [toolUseIds], columns);
  }

  async findById(scope: SnapshotScope, id: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    return (await this.select(scope, 'r.id = ?', [id], columns))[0] ?? null;
  }

  /** The scope's snapshot with this mem id, or null for a missing one, another user's or one outside the allowed spaces (R-LG-2). */
  async findByMemId(scope: SnapshotScope, memId: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    return (await this.select(scope, 'r.mem_id = ?', [memId], columns))[0] ?? null;
  }

  /**
   * The owner's snapshots among these ids (UUIDs) in one space, at one generation, of the team:
   * what a recall event of that owner can still show. The caller reads team-wide (the owner may
   * be another member than the reader); the payloads are never loaded.
   */
  async findReturned(teamId: string, owner: ReturnedSnapshotOwner, ids: readonly string[]): Promise<ToolResultSnapshot[]> {
    if (ids.length === 0) return [];
    return this.select(
      { userId: owner.userId, spaceIds: [owner.spaceId] },
      'r.team_id = ? and r.space_generation = ? and r.id in (?)',
      [teamId, owner.spaceGeneration, ids],
      {},
    );
  }

  private async select(scope: SnapshotScope, where: string, params: unknown[], columns: SnapshotColumns): Promise<ToolResultSnapshot[]> {
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      `select ${snapshotColumns(columns)} from ${SNAPSHOTS_FROM}
        where ${SCOPE_PREDICATE} and ${where}`,
      [...scopeBindings(scope), ...params],
    );
    return rows.map((row) => toToolResultSnapshot(row, columns));
  }

  /**
   * The value a selection picks inside the user's snapshot, evaluated in PostgreSQL so only the
   * value's text (cut at `maxChars`) leaves the database. A text output that holds JSON is read
   * as JSON. Null: no such snapshot of the user's; `value: null`: nothing is there, or the text
   * is not JSON.
   */
  async findJsonPathValue(
    scope: SnapshotScope & { readonly teamId: string },
    memId: string,
    selection: JsonSelection,
    maxChars: number,
  ): Promise<PathLookup | null> {
    try {
      if (selection.kind !== 'nodes') return await this.findPathValue(scope, memId, selection, maxChars);
      // `offset 0` fences each lateral: without it PostgreSQL inlines them and decompresses the
      // large value once per reference instead of once.
      // `complete` is decided in PostgreSQL, which cuts and counts in code points (JS counts UTF-16 units).
      const sql = `select v.kind, left(v.body, ?) as body, length(v.body) as body_length, length(v.body) <= ? as complete,
               case when v.kind = 'array' then jsonb_array_length(selected.value) end as items
        from ${SNAPSHOTS_FROM}
        cross join lateral (select ${NODE_LIST} as value offset 0) selected
        cross join lateral (
          select jsonb_typeof(selected.value) as kind,
                 case when jsonb_typeof(selected.value) = 'string' then selected.value #>> '{}' else selected.value::text end as body
          offset 0
        ) v
        where ${SCOPE_PREDICATE} and r.mem_id = ?`;
      const params = [maxChars, maxChars, selection.sqlPath, selection.maxNodes + 1, ...scopeBindings(scope), memId];
      const rows = await inTransactionWithTimeout(this.em, selection.timeoutMs, (tx) => runSql<PathRow[]>(tx, sql, params));
      if (rows.length === 0) return null;
      if (Number(rows[0].items) > selection.maxNodes) return { tooMany: true };
      return { value: pathValueOf(rows[0]) };
    } catch (error) {
      if (isNotJsonText(error)) return { value: null };
      if (isCanceledByTimeout(error) && selection.kind === 'nodes') return { timedOut: true };
      throw error;
    }
  }

  /** A single value (a dotted path's keys or a singular SQL/JSON path): one round trip through `tool_results_path_value`. */
  private async findPathValue(
    scope: SnapshotScope & { readonly teamId: string },
    memId: string,
    selection: Exclude<JsonSelection, { kind: 'nodes' }>,
    maxChars: number,
  ): Promise<PathLookup | null> {
    const rows = await runSql<PathRow[]>(
      this.em,
      'select kind, body, body_length, complete from tool_results_path_value(?::uuid, ?::uuid, ?::uuid[], ?, ?::text[], ?::jsonpath, ?::int)',
      [
        scope.teamId,
        scope.userId,
        spaceIdsParam(scope),
        memId,
        selection.kind === 'keys' ? arrayLiteral(selection.keys) : null,
        selection.kind === 'value' ? selection.sqlPath : null,
        maxChars,
      ],
      // The function makes the tenant settings from p_team/p_user itself: one round trip (R-TN-8).
      { setsOwnScope: true },
    );
    return rows.length === 0 ? null : { value: pathValueOf(rows[0]) };
  }

  /**
   * The user's snapshot's payload as JSON (a text output read as the JSON it holds), when it
   * has at most `maxChars` characters; its size either way. Null: no such snapshot of the user's.
   */
  async findJsonDocument(scope: SnapshotScope, memId: string, maxChars: number): Promise<{ sizeChars: number; document?: unknown } | null> {
    const rows = await runSql<{ size_chars: number; tool_output: unknown }[]>(
      this.em,
      `select r.size_chars, case when r.size_chars <= ? then r.tool_output end as tool_output from ${SNAPSHOTS_FROM}
        where ${SCOPE_PREDICATE} and r.mem_id = ?`,
      [maxChars, ...scopeBindings(scope), memId],
    );
    if (rows.length === 0) return null;
    const { size_chars: sizeChars, tool_output: output } = rows[0];
    return sizeChars <= maxChars ? { sizeChars, document: readJsonText(output) } : { sizeChars };
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
      'select * from tool_results_recent(?, ?::uuid[], ?, ?, ?, ?) order by rank',
      recentArguments(scope, conversationId, limit, columns),
    );
    return rows.map((row) => toToolResultSnapshot(row, columns));
  }

  /** The full-text search over the scope's snapshots in one space, ranked (R-RC-8; see `tool_results_search`). */
  async search(scope: SnapshotScope, search: SnapshotSearch, columns: SnapshotColumns = {}): Promise<SnapshotSearchHit[]> {
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      'select * from tool_results_search(?, ?::uuid[], ?, ?, ?, ?, ?::timestamptz, ?, ?, ?) order by rank',
      searchArguments(scope, search, columns),
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
  ): Promise<ToolResultSnapshot[]> {
    const where = [SCOPE_PREDICATE];
    const params: unknown[] = [...scopeBindings(scope)];
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
    const rows = await runSql<ToolResultSnapshotRow[]>(
      this.em,
      `select ${snapshotColumns(columns)} from ${SNAPSHOTS_FROM}
        where ${where.join(' and ')}
        order by r.created_at desc, r.id desc
        limit ?`,
      [...params, limit],
    );
    return rows.map((row) => toToolResultSnapshot(row, columns));
  }

  // System operations of retention (R-RT-1, R-RT-4): one team's sweep, or one user's deletion.

  /**
   * The team's oldest snapshots past the cutoff, read through its (team_id, created_at) index and
   * deleted by their row addresses (a TID scan: no primary-key lookup per row, half the time of
   * `id in (…)` in the issue-25 bench); how many went. A row updated between the read and the
   * delete has moved and is left for the next batch.
   */
  deleteExpiredBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return countChanged(
      this.em,
      `delete from message_tool_results where ctid = any(array(
         select ctid from message_tool_results where team_id = ? and created_at < ? order by created_at limit ?))`,
      [teamId, cutoff.toISOString(), limit],
    );
  }

  /** Every snapshot of the user (conversations and messages go with ConversationRepository's); how many. */
  deleteAllOfUser(userId: string): Promise<number> {
    return countChanged(this.em, 'delete from message_tool_results where user_id = ?', [userId]);
  }
}
