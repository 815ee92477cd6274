import { Entity, Index, ManyToOne, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Team } from './team.entity';

/** A user profile, owned by exactly one team. Created just in time from a token's `sub`. */
@Entity({ tableName: 'users' })
export class User {
  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Index()
  @ManyToOne(() => Team, { deleteRule: 'cascade', fieldName: 'team_id' })
  team: Team;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
