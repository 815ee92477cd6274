import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../database/run-sql';

/**
 * Teams as the scheduler's retention sweep walks them: the only read here that crosses teams,
 * and named for it. Row-level security shows the request role one team at most, so the list
 * comes from a maintenance function of the owner's (`tenancy_team_ids`, SECURITY DEFINER).
 */
@Injectable()
export class TeamRepository {
  constructor(private readonly em: EntityManager) {}

  /** Every team's id, in id order. */
  async listAllIds(): Promise<string[]> {
    const rows = await runSql<{ id: string }[]>(this.em, 'select id from tenancy_team_ids() as t(id)');
    return rows.map((r) => r.id);
  }

  /** The ids of every space of the team, whatever its status (a retired space's rows still age out). */
  async spaceIdsOf(teamId: string): Promise<string[]> {
    const rows = await runSql<{ id: string }[]>(this.em, 'select id from spaces where team_id = ? order by id', [teamId]);
    return rows.map((r) => r.id);
  }
}
