import { runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

export interface FlagValue {
  key: string;
  enabled: boolean;
}

/** Feature flags: the global defaults (one row per known key) and the teams' own values. */
@Injectable()
export class FeatureFlagRepository {
  constructor(private readonly em: EntityManager) {}

  /** Every known flag with the team's value, falling back to the global default. */
  async effectiveForTeam(teamId: string): Promise<FlagValue[]> {
    return runSql<FlagValue[]>(
      this.em,
      `select g.key, coalesce(t.enabled, g.enabled) as enabled
         from feature_flags g
         left join team_feature_flags t on t.team_id = ? and t.key = g.key
        order by g.key`,
      [teamId],
    );
  }

  async setForTeam(teamId: string, key: string, enabled: boolean): Promise<void> {
    await runSql(
      this.em,
      `insert into team_feature_flags (team_id, key, enabled) values (?, ?, ?)
       on conflict on constraint team_feature_flags_pkey do update set enabled = excluded.enabled, updated_at = now()`,
      [teamId, key, enabled],
    );
  }
}
