import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../database/run-sql';
import { type SnapshotScope, spaceIdsParam } from './snapshot-scope';
import type { ToolResultSnapshot } from './tool-result-snapshot';

/** A snapshot about to be written: its handle built (R-LG-1), its payloads serialized once by the caller. */
export type UnsavedSnapshot = Omit<ToolResultSnapshot, 'spaceId' | 'createdAt' | 'createdKey'> & {
  toolInput: unknown;
  toolOutput: unknown;
  toolInputJson: string;
  toolOutputJson: string;
  createdAt?: Date | null;
};

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
 * The snapshot write path. Every statement carries the owner's user id: a row of another user is
 * never locked or written through here.
 */
@Injectable()
export class ToolResultWriteRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * The write path in one round trip (the database function `record_tool_results`, whose current body schema.sql shows):
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
    scope: SnapshotScope,
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
  async setCompacted(scope: Pick<SnapshotScope, 'teamId' | 'userId'>, ids: readonly string[], compacted: boolean): Promise<string[]> {
    const rows = await runSql<{ id: string }[]>(
      this.em,
      `update message_tool_results set compacted = ? where team_id = ? and user_id = ? and id in (?) and compacted <> ? returning id`,
      [compacted, scope.teamId, scope.userId, ids, compacted],
    );
    return rows.map((r) => r.id);
  }
}
