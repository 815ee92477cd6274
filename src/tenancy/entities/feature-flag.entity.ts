import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Team } from './team.entity';

/** A flag value: one global default row (team null) per key, and optional team overrides. */
@Entity({ tableName: 'feature_flags' })
@Unique({
  name: 'feature_flags_key_team_unique',
  expression: 'create unique index "feature_flags_key_team_unique" on "feature_flags" ("key", "team_id") nulls not distinct',
})
export class FeatureFlag {
  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Property({ type: 'varchar', length: 64 })
  key: string;

  @ManyToOne(() => Team, { nullable: true, deleteRule: 'cascade', fieldName: 'team_id' })
  team: Team | null;

  @Property({ type: 'boolean' })
  enabled: boolean;

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
