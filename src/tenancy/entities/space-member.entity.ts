import { Entity, Index, ManyToOne, type Opt, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Space } from './space.entity';
import { Team } from './team.entity';
import { User } from './user.entity';

/**
 * Membership of a user in a space of the same team: both foreign keys carry the team, so a
 * membership can only join a space and a user of its own team.
 */
@Entity({ tableName: 'space_members' })
// The actor's allowed-space set is looked up by user on every request.
@Index({
  name: 'space_members_team_user',
  expression: 'create index "space_members_team_user" on "space_members" ("team_id", "user_id")',
})
export class SpaceMember {
  [PrimaryKeyProp]?: ['team', 'space', 'user'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @ManyToOne(() => Space, {
    primary: true,
    fieldNames: ['team_id', 'space_id'],
    ownColumns: ['space_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  space: Space;

  @ManyToOne(() => User, {
    primary: true,
    fieldNames: ['team_id', 'user_id'],
    ownColumns: ['user_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  user: User;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
