import { runSql } from '../database/run-sql';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { SpaceStatus } from './entities/space.entity';

export interface SpaceView {
  id: string;
  name: string;
  generation: number;
  status: SpaceStatus;
  memberIds: string[];
}

interface SpaceRow {
  id: string;
  name: string;
  generation: number;
  status: SpaceStatus;
  member_ids: string[];
}

const SELECT_VIEW = `
  select s.id, s.name, s.generation, s.status,
         coalesce(array_agg(m.user_id order by m.created_at, m.user_id) filter (where m.user_id is not null), '{}') as member_ids
    from spaces s
    left join space_members m on m.team_id = s.team_id and m.space_id = s.id`;

const toView = (row: SpaceRow): SpaceView => ({
  id: row.id,
  name: row.name,
  generation: row.generation,
  status: row.status,
  memberIds: row.member_ids,
});

/** Spaces and their memberships. Every method is scoped by the team that owns the space. */
@Injectable()
export class SpaceRepository {
  constructor(private readonly em: EntityManager) {}

  async listForTeam(teamId: string): Promise<SpaceView[]> {
    const rows = await runSql<SpaceRow[]>(
      this.em,
      `${SELECT_VIEW} where s.team_id = ? group by s.team_id, s.id order by s.created_at, s.id`,
      [teamId],
    );
    return rows.map(toView);
  }

  async findInTeam(teamId: string, spaceId: string): Promise<SpaceView | null> {
    const rows = await runSql<SpaceRow[]>(this.em, `${SELECT_VIEW} where s.team_id = ? and s.id = ? group by s.team_id, s.id`, [
      teamId,
      spaceId,
    ]);
    return rows.length > 0 ? toView(rows[0]) : null;
  }

  async listByIdsInTeam(teamId: string, spaceIds: readonly string[]): Promise<SpaceView[]> {
    if (spaceIds.length === 0) return [];
    const rows = await runSql<SpaceRow[]>(
      this.em,
      `${SELECT_VIEW} where s.team_id = ? and s.id in (?) group by s.team_id, s.id order by s.created_at, s.id`,
      [teamId, spaceIds],
    );
    return rows.map(toView);
  }

  /** Creates an ACTIVE space at generation 1 with its creator as the first member, in one statement. */
  async create(teamId: string, name: string, creatorId: string): Promise<string> {
    const id = randomUUID();
    await runSql(
      this.em,
      `with space as (insert into spaces (id, team_id, name) values (?, ?, ?) returning team_id, id)
       insert into space_members (team_id, space_id, user_id) select team_id, id, ? from space`,
      [id, teamId, name, creatorId],
    );
    return id;
  }

  /** Adds a user of the team as a member; a RETIRED space adds nothing. */
  async addMember(teamId: string, spaceId: string, userId: string): Promise<void> {
    await runSql(
      this.em,
      `insert into space_members (team_id, space_id, user_id)
       select s.team_id, s.id, u.id from spaces s join users u on u.team_id = s.team_id
        where s.team_id = ? and s.id = ? and u.id = ? and s.status <> 'RETIRED'
       on conflict do nothing`,
      [teamId, spaceId, userId],
    );
  }

  async removeMember(teamId: string, spaceId: string, userId: string): Promise<void> {
    await runSql(this.em, `delete from space_members where team_id = ? and space_id = ? and user_id = ?`, [teamId, spaceId, userId]);
  }

  async setStatus(teamId: string, spaceId: string, status: SpaceStatus): Promise<void> {
    await runSql(this.em, `update spaces set status = ?, updated_at = now() where team_id = ? and id = ?`, [status, teamId, spaceId]);
  }

  /** Atomic increment, so two concurrent bumps give two generations. */
  async bumpGeneration(teamId: string, spaceId: string): Promise<void> {
    await runSql(
      this.em,
      `update spaces set generation = generation + 1, updated_at = now() where team_id = ? and id = ? and status <> 'RETIRED'`,
      [teamId, spaceId],
    );
  }
}
