import { Injectable } from '@nestjs/common';
import { UserRepository } from './user.repository';

/**
 * A user's deletion as Tenancy takes part in it (R-RT-4). The caller holds one transaction
 * around `lockInTeam`, the deletions of the modules above, and `deleteInTeam`.
 */
@Injectable()
export class UserService {
  constructor(private readonly users: UserRepository) {}

  /** Locks the user until the transaction ends, so nothing of theirs is added meanwhile; false: no such user. */
  lockInTeam(teamId: string, userId: string): Promise<boolean> {
    return this.users.lockInTeam(teamId, userId);
  }

  /** The user and their memberships, counted by table. */
  deleteInTeam(teamId: string, userId: string): Promise<{ space_members: number; users: number }> {
    return this.users.deleteInTeam(teamId, userId);
  }
}
