import { runSql } from '../database/run-sql';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

export interface FlagValue {
  key: string;
  enabled: boolean;
}

/** Feature flags: a global default row per key (team null) and per-team overrides. */
@Injectable()
export class FeatureFlagRepository {
  constructor(private readonly em: EntityManager) {}

  /** Every known flag with the team's value, falling back to the global default. */
  async effectiveForTeam(teamId: string): Promise<FlagValue[]> {
    return runSql<FlagValue[]>(
      this.em,
      `select g.key, coalesce(t.enabled, g.enabled) as enabled
         from feature_flags g
         left join feature_flags t on t.key = g.key and t.team_id = ?
        where g.team_id is null
        order by g.key`,
      [teamId],
    );
  }

  async setForTeam(teamId: string, key: string, enabled: boolean): Promise<void> {
    await runSql(
      this.em,
      `insert into feature_flags (id, key, team_id, enabled) values (?, ?, ?, ?)
       on conflict (key, team_id) do update set enabled = excluded.enabled, updated_at = now()`,
      [randomUUID(), key, teamId, enabled],
    );
  }
}
