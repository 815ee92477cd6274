import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { KeysetPosition } from '../common/pagination/keyset-cursor';
import type { HandleWithStub } from './handle/tool-result-handle';
import type { PathValue } from './path-value';
import { CREATED_KEY, type SnapshotColumns, snapshotColumns, type SnapshotRecord, type SnapshotRow, toSnapshotRecord, type ToolResultFields } from './snapshot-record';
import { SCOPE_PREDICATE, scopeBindings, type SnapshotScope } from './snapshot-scope';
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

/** `(?, ?, …), (?, ?, …)` for a multi-row VALUES list. */
function valuesList(rows: number, row: string): string {
  return Array.from({ length: rows }, () => row).join(', ');
}

/**
 * Snapshots, their conversations and messages. Every statement carries the owner's user id:
 * a row of another user is never read, locked, written or deleted through here. Every read of
 * snapshots also carries the allowed spaces ({@link SnapshotScope}), in SQL.
 */
@Injectable()
export class ToolResultRepository {
  constructor(private readonly em: EntityManager) {}

  inTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.em.transactional(work);
  }

  /** Runs a statement built by this module (already scoped, e.g. snapshotSearchStatement). */
  run<Row>(statement: SqlStatement): Promise<Row[]> {
    return this.em.execute<Row[]>(statement.sql, statement.params);
  }

  /**
   * Creates the conversations and messages that are new, in one statement; existing rows
   * (anyone's) are left alone: ownership is checked under the lock taken next. Callers pass
   * rows in id order, so two batches creating the same rows never wait on each other in a cycle.
   */
  async insertMissingConversationsAndMessages(
    userId: string,
    conversations: readonly { id: string; spaceId: string }[],
    messages: readonly { id: string; conversationId: string }[],
  ): Promise<void> {
    await this.em.execute(
      `with new_conversations as (
         insert into conversations (id, user_id, space_id) values ${valuesList(conversations.length, '(?, ?, ?)')} on conflict (id) do nothing)
       insert into messages (id, conversation_id, user_id, role) values ${valuesList(messages.length, `(?, ?, ?, 'assistant')`)} on conflict (id) do nothing`,
      [...conversations.flatMap((c) => [c.id, userId, c.spaceId]), ...messages.flatMap((m) => [m.id, m.conversationId, userId])],
    );
  }

  /**
   * In one round trip: locks the user's own conversations among `conversationIds` until the
   * transaction ends (in id order, so writers to one conversation take turns and the cap stays
   * exact without deadlocks), and reads the user's own messages among `messageIds`.
   */
  async lockOwnConversationsAndFindMessages(
    userId: string,
    conversationIds: readonly string[],
    messageIds: readonly string[],
  ): Promise<{ conversations: { id: string; spaceId: string }[]; messages: { id: string; conversationId: string }[] }> {
    const rows = await this.em.execute<{ kind: 'conversation' | 'message'; id: string; parent_id: string }[]>(
      `with locked as (select id, space_id from conversations where user_id = ? and id in (?) order by id for no key update)
       select 'conversation' as kind, id, space_id as parent_id from locked
       union all
       select 'message', id, conversation_id from messages where user_id = ? and id in (?)`,
      [userId, conversationIds, userId, messageIds],
    );
    return {
      conversations: rows.filter((r) => r.kind === 'conversation').map((r) => ({ id: r.id, spaceId: r.parent_id })),
      messages: rows.filter((r) => r.kind === 'message').map((r) => ({ id: r.id, conversationId: r.parent_id })),
    };
  }

  /**
   * Inserts the snapshots whose tool_use_id is new for the user. Returns what the database
   * decided for each inserted row (id and time); the payloads are not sent back.
   */
  async insertSnapshots(userId: string, snapshots: readonly NewSnapshot[]): Promise<{ id: string; createdKey: string }[]> {
    // clock_timestamp(), not now(): rows of one batch keep their input order in time.
    const rows = await this.em.execute<{ id: string; created_key: string }[]>(
      `insert into message_tool_results
         (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
          summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted)
       values ${valuesList(snapshots.length, '(?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, coalesce(?::timestamptz, clock_timestamp()), ?, ?, ?, ?, ?, ?, ?, ?, ?)')}
       on conflict (user_id, tool_use_id) do nothing
       returning id, ${CREATED_KEY} as created_key`,
      snapshots.flatMap((s) => [
        s.id,
        userId,
        s.messageId,
        s.conversationId,
        s.toolName,
        s.toolInputJson,
        s.toolOutputJson,
        s.createdAt?.toISOString() ?? null,
        s.toolUseId,
        s.memId,
        s.sizeChars,
        s.handle.summaryOneliner,
        s.handle.schemaHint,
        s.handle.headPreview,
        s.handle.stub,
        s.handle.sizeTokens,
        s.compacted,
      ]),
    );
    return rows.map((r) => ({ id: r.id, createdKey: r.created_key }));
  }

  /**
   * Deletes the oldest uncompacted snapshots past `cap` in each conversation (R-TR-3); returns
   * how many. A compacted snapshot is neither counted nor deleted: its stub is in a history, and
   * it goes only by retention or a user deletion. One branch per conversation with its id as a
   * value the planner sees, so each walks the scoped recency index (pinned by a plan test).
   */
  async trimConversations(userId: string, conversationIds: readonly string[], cap: number): Promise<number> {
    const excess = `(select id from message_tool_results where conversation_id = ? and user_id = ? and not compacted
                      order by created_at desc, id desc offset ?)`;
    const rows = await this.em.execute<{ id: string }[]>(
      `delete from message_tool_results where id in (${conversationIds.map(() => excess).join(' union all ')}) returning id`,
      conversationIds.flatMap((id) => [id, userId, cap]),
    );
    return rows.length;
  }

  /**
   * Sets the compacted mark of the user's snapshots (a stub handed out exempts them from the cap);
   * returns the ids whose mark this statement changed, so a caller learns which rows still exist.
   */
  async setCompacted(userId: string, ids: readonly string[], compacted: boolean): Promise<string[]> {
    const rows = await this.em.execute<{ id: string }[]>(
      `update message_tool_results set compacted = ? where user_id = ? and id in (?) and compacted <> ? returning id`,
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
    const rows = await this.em.execute<SnapshotRow[]>(
      `select ${snapshotColumns(columns)} from message_tool_results r join conversations c on c.id = r.conversation_id
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
      const rows = await this.em.execute<{ kind: string | null; body: string | null; body_length: number | null; complete: boolean | null }[]>(sql, [
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
    const rows = await this.em.execute<{ id: string; space_id: string }[]>(
      `select id, space_id from conversations where user_id = ? and id = ?`,
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
    const rows = await this.em.execute<SnapshotRow[]>(
      `select ${snapshotColumns(columns)} from message_tool_results r join conversations c on c.id = r.conversation_id
        where r.conversation_id = ? and ${SCOPE_PREDICATE} and c.user_id = ?
        order by r.created_at desc, r.id desc
        limit ?`,
      [conversationId, ...scopeBindings(scope), scope.userId, limit],
    );
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
    const rows = await this.em.execute<SnapshotRow[]>(
      `select ${snapshotColumns(columns)} from message_tool_results r join conversations c on c.id = r.conversation_id
        where ${where.join(' and ')}
        order by r.created_at desc, r.id desc
        limit ?`,
      [...params, limit],
    );
    return rows.map(toSnapshotRecord);
  }
}
