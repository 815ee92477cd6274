import { Entity, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team } from './team.entity';

/**
 * A user of one team, created just in time from a token's `sub`. Keyed by (team_id, id):
 * the same `sub` in another team is another user with nothing in common (docs/tenancy.md).
 */
@Entity({ tableName: 'users' })
export class User {
  [PrimaryKeyProp]?: ['team', 'id'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
