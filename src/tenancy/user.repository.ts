import { countChanged, runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

/** User profiles as seen by an admin of a team. */
@Injectable()
export class UserRepository {
  constructor(private readonly em: EntityManager) {}

  /** True when the user exists in this team. A user of another team reads as missing. */
  async existsInTeam(teamId: string, userId: string): Promise<boolean> {
    const rows = await runSql<{ one: number }[]>(this.em, `select 1 as one from users where team_id = ? and id = ?`, [teamId, userId]);
    return rows.length > 0;
  }

  /**
   * Provisions a user into the admin's team when the id is unknown; returns false when the id
   * already belongs to another team (which the caller reports as not found).
   */
  async ensureInTeam(teamId: string, userId: string): Promise<boolean> {
    await runSql(this.em, `insert into users (id, team_id) values (?, ?) on conflict (id) do nothing`, [userId, teamId]);
    return this.existsInTeam(teamId, userId);
  }

  /**
   * Locks the user of this team until the transaction ends (false: no such user): every write
   * that refers to the user waits for it, so nothing of theirs is added while they are deleted.
   */
  async lockInTeam(teamId: string, userId: string): Promise<boolean> {
    const rows = await runSql(this.em, 'select 1 from users where id = ? and team_id = ? for update', [userId, teamId]);
    return rows.length > 0;
  }

  /** Deletes the user of this team and their space memberships, counted by table. */
  async deleteInTeam(teamId: string, userId: string): Promise<{ space_members: number; users: number }> {
    const members = await countChanged(
      this.em,
      'delete from space_members where user_id = ? and user_id in (select id from users where team_id = ?)',
      [userId, teamId],
    );
    const users = await countChanged(this.em, 'delete from users where id = ? and team_id = ?', [userId, teamId]);
    return { space_members: members, users };
  }
}
