import { countChanged, runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

/** User profiles as seen by an admin of a team. */
@Injectable()
export class UserRepository {
  constructor(private readonly em: EntityManager) {}

  /** True when the user exists in this team (the same id in another team is another user). */
  async existsInTeam(teamId: string, userId: string): Promise<boolean> {
    const rows = await runSql<{ one: number }[]>(this.em, `select 1 as one from users where team_id = ? and id = ?`, [teamId, userId]);
    return rows.length > 0;
  }

  /**
   * Provisions the team's user of this id when it is new. Users are the team's own (keyed by
   * team and id): no other team's user is created, claimed or locked out here.
   */
  async ensureInTeam(teamId: string, userId: string): Promise<void> {
    await runSql(this.em, `insert into users (team_id, id) values (?, ?) on conflict on constraint users_pkey do nothing`, [
      teamId,
      userId,
    ]);
  }

  /**
   * Locks the user of this team until the transaction ends (false: no such user): every write
   * that refers to the user waits for it, so nothing of theirs is added while they are deleted.
   */
  async lockInTeam(teamId: string, userId: string): Promise<boolean> {
    const rows = await runSql(this.em, 'select 1 from users where team_id = ? and id = ? for update', [teamId, userId]);
    return rows.length > 0;
  }

  /** Deletes the user of this team and their space memberships, counted by table. */
  async deleteInTeam(teamId: string, userId: string): Promise<{ space_members: number; users: number }> {
    const members = await countChanged(this.em, 'delete from space_members where team_id = ? and user_id = ?', [teamId, userId]);
    const users = await countChanged(this.em, 'delete from users where team_id = ? and id = ?', [teamId, userId]);
    return { space_members: members, users };
  }

  /**
   * Marks the team's user of this id deleted as of now (the statement's clock, late in the
   * deletion's transaction): tokens issued before it are refused for them (R-RT-4).
   */
  async tombstone(teamId: string, userId: string): Promise<void> {
    await runSql(
      this.em,
      `insert into user_tombstones (team_id, user_id, deleted_at) values (?, ?, clock_timestamp())
       on conflict on constraint user_tombstones_pkey do update set deleted_at = excluded.deleted_at`,
      [teamId, userId],
    );
  }

  /** Deletes up to `limit` of the team's tombstones older than `cutoff` (no token that old is accepted); how many. */
  deleteTombstonesBefore(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return countChanged(
      this.em,
      `delete from user_tombstones where team_id = ? and user_id in
         (select user_id from user_tombstones where team_id = ? and deleted_at < ? limit ?)`,
      [teamId, teamId, cutoff, limit],
    );
  }
}
