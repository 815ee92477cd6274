import { Injectable } from '@nestjs/common';
import type { RecallEventDraft, UnplacedRecallEvent } from '../recall-events';
import { type ActorContext, type ActorOrPending, allowedSpacesOf, asActorError, PendingActor } from '../tenancy';
import {
  type SnapshotColumns,
  type SnapshotSearch,
  type SnapshotSearchHit,
  snapshotScopeOf,
  type ToolResultSnapshot,
  type ToolResultSnapshotRow,
  toSearchHit,
  toToolResultSnapshot,
} from '../tool-results';
import { RecallReadsRepository } from './recall-reads.repository';

/** A recall's reads of snapshots, each storing its recall event in the same statement (R-RC-1, R-RC-8). */
@Injectable()
export class RecallReads {
  constructor(private readonly events: RecallReadsRepository) {}

  /**
   * The full-text search over the actor's snapshots (R-RC-8) and the event of its results, stored
   * by the same statement. A failure to store throws: the caller answers degraded.
   */
  async searchAndRecord(
    actor: ActorContext,
    search: SnapshotSearch,
    columns: SnapshotColumns,
    draft: RecallEventDraft,
  ): Promise<SnapshotSearchHit[]> {
    const rows = await this.events.searchAndRecord(snapshotScopeOf(actor), search, columns, draft);
    return rows.map((row) => toSearchHit(row, columns));
  }

  /**
   * The `limit` newest snapshots of the actor's conversation and the event of them, stored in the
   * conversation's space, in one statement. `snapshots` null: the conversation is not the actor's
   * in an allowed space (nothing stored). A caller not yet read from the database (`PendingActor`)
   * is read by the same statement, and comes back as the request's actor. A failure to store
   * throws: the caller answers degraded.
   */
  async readRecentAndRecord(
    caller: ActorOrPending,
    recent: { conversationId: string; limit: number; columns: SnapshotColumns },
    draft: UnplacedRecallEvent,
  ): Promise<{ actor: ActorContext; snapshots: ToolResultSnapshot[] | null }> {
    let actor: ActorContext;
    let rows: (Omit<ToolResultSnapshotRow, 'id'> & { id: string | null })[];
    if (caller instanceof PendingActor) {
      const read = await this.events.recentAndRecordForToken(caller.claims, recent, draft).catch((error: unknown) => {
        throw asActorError(error);
      });
      // A new user: provisioned and read the guard's way, then the block's own statement as for any actor.
      if (read[0].actor_status === 'new') return this.readRecentAndRecord(await caller.resolve(), recent, draft);
      actor = caller.settle(allowedSpacesOf(read[0]));
      rows = read[0].actor_status === 'missing' ? [] : read;
    } else {
      actor = caller;
      const generations = new Map(actor.allowedSpaces.map((s) => [s.id, s.generation]));
      rows = await this.events.recentAndRecord(snapshotScopeOf(actor), generations, recent, draft);
    }
    // No row: no such conversation of the actor's. One row without an id: an empty conversation.
    if (rows.length === 0) return { actor, snapshots: null };
    const snapshots = rows.flatMap((row) => (row.id === null ? [] : [toToolResultSnapshot({ ...row, id: row.id }, recent.columns)]));
    return { actor, snapshots };
  }
}
