import { runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { KeysetPosition } from '../common/pagination/keyset-cursor';
import type { HandleWithStub } from './handle/tool-result-handle';
import type { PathValue } from './path-value';
import { type SnapshotColumns, snapshotColumns, type SnapshotRecord, type SnapshotRow, toSnapshotRecord, type ToolResultFields } from './snapshot-record';
import { SCOPE_PREDICATE, scopeBindings, type SnapshotScope, spaceIdsParam } from './snapshot-scope';
import type { SqlStatement } from './snapshot-search';

export interface NewSnapshot extends ToolResultFields {
  id: string;
  memId: string;
  sizeChars: number;
  /** Built from the payload as received, stored, and served from then on (R-LG-1). */
  handle: HandleWithStub;
  /** Its stub was handed out by compaction: exempt from the per-conversation cap. */
  compacted: boolean;
  /** The payloads serialized once by the caller (it measured them already). */
  toolInputJson: string;
  toolOutputJson: string;
  createdAt?: Date | null;
}

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

/**
 * The `limit` newest snapshots of the scope's conversation, newest first, each with its `rank`
 * from 1; a statement, so a caller can run it together with a write of its own.
 */
export function recentInConversationStatement(scope: SnapshotScope, conversationId: string, limit: number, columns: SnapshotColumns = {}): SqlStatement {
  return {
    sql: `select ${snapshotColumns(columns)}, row_number() over (order by r.created_at desc, r.id desc) as rank
            from message_tool_results r join conversations c on c.id = r.conversation_id
           where r.conversation_id = ? and ${SCOPE_PREDICATE} and c.user_id = ?
           order by r.created_at desc, r.id desc
           limit ?`,
    params: [conversationId, ...scopeBindings(scope), scope.userId, limit],
  };
}

/**
 * The batch as one JSON array for `record_tool_results`. The payloads go in as the JSON text the
 * caller already measured, not parsed and serialized again.
 */
function snapshotsJson(snapshots: readonly NewSnapshot[]): string {
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
 * Snapshots, their conversations and messages. Every statement carries the owner's user id:
 * a row of another user is never read, locked, written or deleted through here. Every read of
 * snapshots also carries the allowed spaces ({@link SnapshotScope}), in SQL.
 */
@Injectable()
export class ToolResultRepository {
  constructor(private readonly em: EntityManager) {}

  /** Runs a statement built by this module (already scoped, e.g. snapshotSearchStatement). */
  run<Row>(statement: SqlStatement): Promise<Row[]> {
    return runSql<Row[]>(this.em, statement.sql, statement.params);
  }

  /**
   * The write path in one round trip (the `record_tool_results` function, see its migration):
   * creates the missing conversations and messages, locks the user's own conversations in id
   * order, checks that every conversation and message of the batch is the user's (else SQLSTATE
   * RL001), inserts the snapshots whose tool_use_id is new, trims each conversation to `cap`
   * uncompacted snapshots, and checks that a repeated tool_use_id is readable in the allowed
   * spaces (else RL002). Either all of it happens or none. Returns the inserted rows' ids and
   * times; the payloads are not sent back.
   */
  async recordBatch(
    scope: SnapshotScope,
    conversations: readonly { id: string; spaceId: string }[],
    messages: readonly { id: string; conversationId: string }[],
    snapshots: readonly NewSnapshot[],
    options: { cap: number; compacted: boolean },
  ): Promise<{ id: string; createdKey: string }[]> {
    const rows = await runSql<{ id: string; created_key: string }[]>(
      this.em,
      `select id, created_key from record_tool_results(?::uuid, array[?]::uuid[], array[?]::uuid[], array[?]::uuid[], array[?]::uuid[], ?::jsonb,
                                                       array[?]::text[], ?::uuid[], ?::int, ?::boolean)`,
      [
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
    );
    return rows.map((r) => ({ id: r.id, createdKey: r.created_key }));
  }

  /**
   * To explain a refused batch, as the batch would have seen them: the user's own conversations
   * and messages among these ids, plus the ids no row has yet (the batch would have created them
   * as the user's). Of another user's rows nothing but their existence is read.
   */
  async findOwnConversationsAndMessages(
    userId: string,
    conversationIds: readonly string[],
    messageIds: readonly string[],
  ): Promise<{ conversations: { id: string; spaceId: string }[]; messages: { id: string; conversationId: string }[]; existing: Set<string> }> {
    const rows = await runSql<{ kind: 'conversation' | 'message'; id: string; parent_id: string | null }[]>(
      this.em,
      `select 'conversation' as kind, id, case when user_id = ? then space_id end as parent_id from conversations where id in (?)
       union all
       select 'message', id, case when user_id = ? then conversation_id end from messages where id in (?)`,
      [userId, conversationIds, userId, messageIds],
    );
    const own = (kind: string) => rows.filter((r): r is typeof r & { parent_id: string } => r.kind === kind && r.parent_id !== null);
    return {
      conversations: own('conversation').map((r) => ({ id: r.id, spaceId: r.parent_id })),
      messages: own('message').map((r) => ({ id: r.id, conversationId: r.parent_id })),
      existing: new Set(rows.map((r) => r.id)),
    };
  }

  /** Which of these tool_use ids the user has stored, in any space. */
  async findOwnToolUseIds(userId: string, toolUseIds: readonly string[]): Promise<string[]> {
    const rows = await runSql<{ tool_use_id: string }[]>(this.em, 'select tool_use_id from message_tool_results where user_id = ? and tool_use_id in (?)', [userId, toolUseIds]);
    return rows.map((r) => r.tool_use_id);
  }

  /**
   * Sets the compacted mark of the user's snapshots (a stub handed out exempts them from the cap);
   * returns the ids whose mark this statement changed, so a caller learns which rows still exist.
   */
  async setCompacted(userId: string, ids: readonly string[], compacted: boolean): Promise<string[]> {
    const rows = await runSql<{ id: string }[]>(this.em, `update message_tool_results set compacted = ? where user_id = ? and id in (?) and compacted <> ? returning id`,
      [compacted, userId, ids, compacted],
    );
    return rows.map((r) => r.id);
  }

  /** The scope's snapshots among these tool_use ids. */
  async findByToolUseIds(scope: SnapshotScope, toolUseIds: readonly string[], columns: SnapshotColumns = {}): Promise<SnapshotRecord[]> {
    return this.select(scope, 'r.tool_use_id in (?)', [toolUseIds], columns);
  }

  async findById(scope: SnapshotScope, id: string, columns: SnapshotColumns = {}): Promise<SnapshotRecord | null> {
    return (await this.select(scope, 'r.id = ?', [id], columns))[0] ?? null;
  }

  /** The scope's snapshot with this mem id, or null for a missing one, another user's or one outside the allowed spaces (R-LG-2). */
  async findByMemId(scope: SnapshotScope, memId: string, columns: SnapshotColumns = {}): Promise<SnapshotRecord | null> {
    return (await this.select(scope, 'r.mem_id = ?', [memId], columns))[0] ?? null;
  }

  private async select(scope: SnapshotScope, where: string, params: unknown[], columns: SnapshotColumns): Promise<SnapshotRecord[]> {
    const rows = await runSql<SnapshotRow[]>(this.em, `select ${snapshotColumns(columns)} from message_tool_results r join conversations c on c.id = r.conversation_id
        where ${SCOPE_PREDICATE} and ${where}`,
      [...scopeBindings(scope), ...params],
    );
    return rows.map(toSnapshotRecord);
  }

  /**
   * The value at `path` (`#>` with a text[] path) inside the user's snapshot, evaluated in
   * PostgreSQL so only the value's text (cut at `maxChars`) leaves the database. A text output
   * that holds JSON is read as JSON. Null: no such snapshot of the user's; `value: null`: the
   * path is not there, or the text is not JSON.
   */
  async findJsonPathValue(scope: SnapshotScope, memId: string, path: readonly string[], maxChars: number): Promise<{ value: PathValue | null } | null> {
    // `array[?]`: knex expands an array binding to `?, ?, …`, so this is a text[] of the segments.
    // A JSON output answers the first `#>`; a text output (a jsonb string, for which `#>` is
    // null) is read as JSON only when it looks like JSON, so plain text never reaches the cast;
    // malformed text that still looks like JSON fails the cast and is answered below as not JSON.
    // `offset 0` fences each lateral: without it PostgreSQL inlines them and decompresses the
    // large value once per reference instead of once.
    // `complete` is decided in PostgreSQL, which cuts and counts in code points (JS counts UTF-16 units).
    const sql = `select v.kind, left(v.body, ?) as body, length(v.body) as body_length, length(v.body) <= ? as complete
      from message_tool_results r
      join conversations c on c.id = r.conversation_id
      cross join lateral (
        select coalesce(
                 r.tool_output #> array[?]::text[],
                 case when jsonb_typeof(r.tool_output) = 'string'
                       and left(ltrim(r.tool_output #>> '{}', E' \\t\\r\\n'), 1) in ('{', '[')
                      then (r.tool_output #>> '{}')::jsonb #> array[?]::text[]
                 end) as value
        offset 0
      ) selected
      cross join lateral (
        select jsonb_typeof(selected.value) as kind,
               case when jsonb_typeof(selected.value) = 'string' then selected.value #>> '{}' else selected.value::text end as body
        offset 0
      ) v
      where ${SCOPE_PREDICATE} and r.mem_id = ?`;
    try {
      const rows = await runSql<{ kind: string | null; body: string | null; body_length: number | null; complete: boolean | null }[]>(this.em, sql, [
        maxChars,
        maxChars,
        path,
        path,
        ...scopeBindings(scope),
        memId,
      ]);
      if (rows.length === 0) return null;
      const row = rows[0];
      if (row.kind === null || row.body === null) return { value: null };
      return { value: { kind: row.kind, body: row.body, bodyLength: Number(row.body_length), complete: row.complete === true } };
    } catch (error) {
      if (isNotJsonText(error)) return { value: null };
      throw error;
    }
  }

  /** The user's own conversation, or null for a missing one or another user's. */
  async findOwnConversation(userId: string, conversationId: string): Promise<{ id: string; spaceId: string } | null> {
    const rows = await runSql<{ id: string; space_id: string }[]>(this.em, `select id, space_id from conversations where user_id = ? and id = ?`,
      [userId, conversationId],
    );
    return rows.length > 0 ? { id: rows[0].id, spaceId: rows[0].space_id } : null;
  }

  /**
   * The K most recent snapshots of the user's own conversation, newest first; none when the
   * conversation is someone else's or outside the allowed spaces. The user predicate is part of
   * the index (conversation_id, user_id, created_at desc, id desc): K rows are read (R-RC-6).
   */
  async recentInConversation(scope: SnapshotScope, conversationId: string, limit: number, columns: SnapshotColumns = {}): Promise<SnapshotRecord[]> {
    const statement = recentInConversationStatement(scope, conversationId, limit, columns);
    const rows = await runSql<SnapshotRow[]>(this.em, statement.sql, statement.params);
    return rows.map(toSnapshotRecord);
  }

  /** Newest first, keyset-paginated on (created_at, id). */
  async history(scope: SnapshotScope, filter: HistoryFilter, after: KeysetPosition | null, limit: number, columns: SnapshotColumns = {}): Promise<SnapshotRecord[]> {
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
    const rows = await runSql<SnapshotRow[]>(this.em, `select ${snapshotColumns(columns)} from message_tool_results r join conversations c on c.id = r.conversation_id
        where ${where.join(' and ')}
        order by r.created_at desc, r.id desc
        limit ?`,
      [...params, limit],
    );
    return rows.map(toSnapshotRecord);
  }
}
