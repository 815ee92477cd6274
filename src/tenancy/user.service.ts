import { Injectable } from '@nestjs/common';
import { UserRepository } from './user.repository';

/**
 * A user's deletion as Tenancy takes part in it (R-RT-4). The caller holds one transaction
 * around `lockInTeam`, the deletions of the modules above, `deleteInTeam` and `tombstone`.
 */
@Injectable()
export class UserService {
  constructor(private readonly users: UserRepository) {}

  /** Locks the user until the transaction ends, so nothing of theirs is added meanwhile; false: no such user. */
  lockInTeam(teamId: string, userId: string): Promise<boolean> {
    return this.users.lockInTeam(teamId, userId);
  }

  /** Tokens issued before now are refused for this user of the team from now on (kept for the longest token age). */
  tombstone(teamId: string, userId: string): Promise<void> {
    return this.users.tombstone(teamId, userId);
  }

  /** Tombstones past every token's age, at most `limit` of them; how many went. */
  deleteTombstonesBefore(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return this.users.deleteTombstonesBefore(teamId, cutoff, limit);
  }

  /** The user and their memberships, counted by table. */
  deleteInTeam(teamId: string, userId: string): Promise<{ space_members: number; users: number }> {
    return this.users.deleteInTeam(teamId, userId);
  }
}
