import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { countChanged } from '../database/run-sql';

/** System operations of retention on snapshots (R-RT-1, R-RT-4): one team's sweep, or one user's deletion. */
@Injectable()
export class ToolResultDeletionRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * The team's oldest snapshots past the cutoff, read through its (team_id, created_at) index and
   * deleted by their row addresses (a TID scan: no primary-key lookup per row, half the time of
   * `id in (…)` in the issue-25 bench); how many went. A row updated between the read and the
   * delete has moved and is left for the next batch.
   */
  deleteExpiredBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return countChanged(
      this.em,
      `delete from message_tool_results where team_id = ? and ctid = any(array(
         select ctid from message_tool_results where team_id = ? and created_at < ? order by created_at limit ?))`,
      [teamId, teamId, cutoff.toISOString(), limit],
    );
  }

  /** Every snapshot of the user (conversations and messages go with ConversationRepository's); how many. */
  deleteAllOfUser(teamId: string, userId: string): Promise<number> {
    return countChanged(this.em, 'delete from message_tool_results where team_id = ? and user_id = ?', [teamId, userId]);
  }
}
