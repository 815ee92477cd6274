import { Injectable } from '@nestjs/common';
import { type ConversationPosition, ConversationRepository } from './conversation.repository';
import { ToolResultDeletionRepository } from './tool-result-deletion.repository';

/** Snapshot deletions for Retention (R-RT-1, R-RT-4): team-wide, by the sweep and a user's deletion. */
@Injectable()
export class ToolResultDeletions {
  constructor(
    private readonly deletions: ToolResultDeletionRepository,
    private readonly conversations: ConversationRepository,
  ) {}

  /** Retention's sweep (R-RT-1): the team's oldest snapshots past the cutoff; how many went. */
  deleteExpiredBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return this.deletions.deleteExpiredBatch(teamId, cutoff, limit);
  }

  /** A user's deletion (R-RT-4): every snapshot, message and conversation of theirs, counted by table. */
  async deleteAllOfUser(
    teamId: string,
    userId: string,
  ): Promise<{ conversations: number; messages: number; message_tool_results: number }> {
    const snapshots = await this.deletions.deleteAllOfUser(teamId, userId);
    const { messages, conversations } = await this.conversations.deleteAllOfUser(teamId, userId);
    return { conversations, messages, message_tool_results: snapshots };
  }

  /**
   * Retention (R-RT-1): one batch of the idle conversations of these spaces (a team's), oldest
   * first after `after`: locked, then deleted with their messages if still idle. `scanned` is how
   * many were locked (fewer than `limit`: the scan is done), `last` where the next batch goes on.
   */
  async deleteIdleConversationsBatch(
    teamId: string,
    spaceIds: readonly string[],
    cutoff: Date,
    after: ConversationPosition | null,
    limit: number,
  ): Promise<{ conversations: number; messages: number; scanned: number; last: ConversationPosition | null }> {
    if (spaceIds.length === 0) return { conversations: 0, messages: 0, scanned: 0, last: after };
    const locked = await this.conversations.lockIdle(teamId, spaceIds, cutoff, after, limit);
    const deleted = await this.conversations.deleteIdle(
      teamId,
      locked.map((c) => c.id),
      cutoff,
    );
    return { ...deleted, scanned: locked.length, last: locked.at(-1) ?? after };
  }
}
