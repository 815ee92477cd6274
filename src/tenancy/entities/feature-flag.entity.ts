import { Entity, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team } from './team.entity';

/**
 * A flag's global default, seeded by a migration: the list of known flags. It belongs to no team
 * (a reference table when distributed, docs/scaling.md); the request role only reads it.
 */
@Entity({ tableName: 'feature_flags' })
export class FeatureFlag {
  @PrimaryKey({ type: 'varchar', length: 64 })
  key: string;

  @Property({ type: 'boolean' })
  enabled: boolean;

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}

/** A team's own value of a flag, set by `setFeatureFlag`, in place of the default. */
@Entity({ tableName: 'team_feature_flags' })
export class TeamFeatureFlag {
  [PrimaryKeyProp]?: ['team', 'flag'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @ManyToOne(() => FeatureFlag, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'key' })
  flag: FeatureFlag;

  @Property({ type: 'boolean' })
  enabled: boolean;

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
