import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../database/run-sql';
import { type RecallEventDraft, recallEventJson, type UnplacedRecallEvent } from '../recall-events';
import type { ActorColumns } from '../tenancy';
import {
  recentArguments,
  searchArguments,
  type SnapshotColumns,
  type SnapshotScope,
  type SnapshotSearch,
  type ToolResultSnapshotRow,
} from '../tool-results';

/**
 * A recall's reads, each with the storing of its recall event in the same statement (one round
 * trip): Recall's database functions (src/recall/sql/) call ToolResults' reads
 * (`tool_results_search`, `tool_results_recent`, `tool_results_conversation_space`) and insert the
 * event into Recall Events' table.
 */
@Injectable()
export class RecallReadsRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Runs the snapshot search and stores the event of its results in one statement (the
   * `recall_events_search_and_record` function, current body in schema.sql): the event's refs are the
   * search's rows at their rank, and the event is stored even when nothing is found. The function
   * makes the request's tenant settings itself (row-level security), so this stays one round trip.
   */
  searchAndRecord(
    scope: SnapshotScope,
    search: SnapshotSearch,
    columns: SnapshotColumns,
    event: RecallEventDraft,
  ): Promise<ToolResultSnapshotRow[]> {
    return runSql<ToolResultSnapshotRow[]>(
      this.em,
      `select * from recall_events_search_and_record(?::jsonb, ?::uuid, ?::int, ?::uuid, ?::uuid, ?::uuid[], ?::uuid, ?, ?::uuid, ?, ?::timestamptz, ?::int, ?, ?)`,
      [recallEventJson(event), event.spaceId, event.spaceGeneration, ...searchArguments(scope, search, columns)],
      { setsOwnScope: true, storedJson: true },
    );
  }

  /**
   * The newest snapshots of the user's conversation and the event of them in one statement (the
   * `recall_events_recent_and_record` function), stored in the conversation's space at the
   * generation the actor holds for it (`generations`: the allowed spaces' generations by id). No
   * row at all: the conversation is not the user's in an allowed space, and nothing was stored. A
   * row with a null `id`: the conversation holds no snapshot (the event was stored, with no refs).
   */
  recentAndRecord(
    scope: SnapshotScope,
    generations: ReadonlyMap<string, number>,
    recent: { conversationId: string; limit: number; columns: SnapshotColumns },
    event: UnplacedRecallEvent,
  ): Promise<(Omit<ToolResultSnapshotRow, 'id'> & { id: string | null })[]> {
    return runSql(
      this.em,
      `select * from recall_events_recent_and_record(?::jsonb, ?::jsonb, ?::uuid, ?::uuid, ?::uuid[], ?::uuid, ?::int, ?, ?)`,
      [
        recallEventJson(event),
        JSON.stringify(Object.fromEntries(generations)),
        ...recentArguments(scope, recent.conversationId, recent.limit, recent.columns),
      ],
      { setsOwnScope: true, storedJson: true },
    );
  }

  /**
   * `recentAndRecord` for a caller not yet read from the database (`recall_block_for_token`): the
   * same statement, after `actor_spaces` has read the token's user and its allowed spaces in the
   * same round trip. `actor_status` on every row: 'new' (no such user yet; nothing read or
   * stored), 'missing' (no such conversation of the user's in an allowed space; nothing stored) or
   * 'ok' (the rows as `recentAndRecord` gives them). A token older than its user's deletion
   * fails with RL004, as the guard's statement does.
   */
  recentAndRecordForToken(
    claims: { userId: string; teamId: string; issuedAt: number },
    recent: { conversationId: string; limit: number; columns: SnapshotColumns },
    event: UnplacedRecallEvent,
  ): Promise<(Omit<ToolResultSnapshotRow, 'id'> & ActorColumns & { id: string | null })[]> {
    return runSql(
      this.em,
      `select * from recall_block_for_token(?::jsonb, ?::uuid, ?::uuid, to_timestamp(?), ?::uuid, ?::int, ?, ?)`,
      [
        recallEventJson(event),
        claims.userId,
        claims.teamId,
        claims.issuedAt,
        recent.conversationId,
        recent.limit,
        recent.columns.input === true,
        recent.columns.output === true,
      ],
      { setsOwnScope: true, storedJson: true },
    );
  }
}
