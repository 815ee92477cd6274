import { runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AllowedSpace } from './actor-context';
import { TOKEN_OLDER_THAN_DELETION } from './pending-actor';

export interface ActorRecord {
  allowedSpaces: AllowedSpace[];
}

interface ActorRow {
  space_id: string | null;
  generation: number | null;
}

/**
 * The actor aggregate: a user, its team and its allowed-space set, read in one round trip on
 * every request (R-TN-4: no cache beyond the request).
 */
@Injectable()
export class ActorRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * The team's user of this id (the same id in another team is another user), or null when new;
   * 'deleted' when the user was deleted after the token was issued (`issuedAt`, seconds).
   */
  async findByUserId(userId: string, teamId: string, issuedAt: number): Promise<ActorRecord | null | 'deleted'> {
    // actor_spaces (its current body: schema.sql): the team's user ⟕ space_members ⟕ ACTIVE spaces, by space id (a
    // row with no space: a user of no space; no row: a new user), refused (RL004) for a token older than the user's
    // tombstone; it makes the request's tenant settings itself, so the guard costs one round trip.
    let rows: ActorRow[];
    try {
      rows = await runSql<ActorRow[]>(
        this.em,
        'select space_id, generation from actor_spaces(?::uuid, ?::uuid, to_timestamp(?))',
        [userId, teamId, issuedAt],
        { setsOwnScope: true },
      );
    } catch (error) {
      if ((error as { code?: string }).code === TOKEN_OLDER_THAN_DELETION) return 'deleted';
      throw error;
    }
    if (rows.length === 0) return null;
    const allowedSpaces = rows
      .filter((r): r is ActorRow & { space_id: string; generation: number } => r.space_id !== null)
      .map((r) => ({ id: r.space_id, generation: r.generation }));
    return { allowedSpaces };
  }

  /** Just-in-time provisioning (R-TN-3): creates the team and the user if they are new. */
  async provision(userId: string, teamId: string): Promise<void> {
    await runSql(
      this.em,
      `with new_team as (insert into teams (id) values (?) on conflict (id) do nothing)
       insert into users (team_id, id) values (?, ?) on conflict on constraint users_pkey do nothing`,
      [teamId, teamId, userId],
    );
  }
}
