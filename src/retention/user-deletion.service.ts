import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../database/unit-of-work';
import { withTenantScope } from '../database/tenant-scope';
import { FeedbackService } from '../feedback';
import { RecallEventService } from '../recall-events';
import { type ActorContext, UserService } from '../tenancy';
import { ToolResultDeletions } from '../tool-results';
import type { TableCount } from './retention-sweep.service';

export interface DeletionReport {
  userId: string;
  deleted: TableCount[];
}

/** Rows a user's deletion removes, by table (R-RT-4), in the order the report lists them. */
const USER_DATA_TABLES = [
  'conversations',
  'messages',
  'message_tool_results',
  'recall_events',
  'feedback_events',
  'space_members',
  'users',
] as const;
type UserDataTable = (typeof USER_DATA_TABLES)[number];

/** Forgetting on request (R-RT-4): a user and everything of theirs, each module deleting from its own tables. */
@Injectable()
export class UserDeletionService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly toolResultDeletions: ToolResultDeletions,
    private readonly recallEvents: RecallEventService,
    private readonly feedback: FeedbackService,
    private readonly users: UserService,
  ) {}

  /**
   * Deletes a user of the admin's team and everything of theirs, in one transaction (R-RT-4). One
   * already deleted, never seen, or of another team reports zeros alike (and the other team's is
   * left untouched): the answer tells no admin which ids exist elsewhere. The user is locked
   * first, so nothing of theirs can be added meanwhile and every count is exact; each module then
   * deletes its own rows, from the top of the module line down. Tokens issued before the deletion
   * are refused for the user from then on (a tombstone), so none of them provisions the user again.
   */
  async deleteUserData(actor: ActorContext, userId: string): Promise<DeletionReport> {
    // Team-wide (the admin's team, no user set): the user's rows are someone else's than the actor's.
    const counts = await withTenantScope({ teamId: actor.teamId }, () =>
      this.unitOfWork.run(() => this.deleteUserRows(actor.teamId, userId)),
    );
    return { userId, deleted: USER_DATA_TABLES.map((table) => ({ table, count: counts?.[table] ?? 0 })) };
  }

  private async deleteUserRows(teamId: string, userId: string): Promise<Record<UserDataTable, number> | null> {
    const counts = (await this.users.lockInTeam(teamId, userId)) ? await this.deleteLockedUser(teamId, userId) : null;
    // Last, and whether or not the user had rows: a token issued before now does not bring them back.
    await this.users.tombstone(teamId, userId);
    return counts;
  }

  private async deleteLockedUser(teamId: string, userId: string): Promise<Record<UserDataTable, number>> {
    const feedbackEvents = await this.feedback.deleteAllOfUser(teamId, userId);
    const recallEvents = await this.recallEvents.deleteAllOfUser(teamId, userId);
    const toolResults = await this.toolResultDeletions.deleteAllOfUser(teamId, userId);
    const tenancy = await this.users.deleteInTeam(teamId, userId);
    return { ...toolResults, recall_events: recallEvents, feedback_events: feedbackEvents, ...tenancy };
  }
}
