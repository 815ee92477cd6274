import { Entity, ManyToOne, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team } from './team.entity';

/**
 * A user of the team deleted by `deleteUserData` (R-RT-4): tokens issued before `deletedAt` are
 * refused for that user, so none re-provisions them. Kept as long as a token may be used after
 * its issue (AUTH_TOKEN_MAX_AGE_SECONDS), then swept.
 */
@Entity({ tableName: 'user_tombstones' })
export class UserTombstone {
  [PrimaryKeyProp]?: ['team', 'userId'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'uuid' })
  userId: string;

  @Property({ type: 'timestamptz' })
  deletedAt: Date;
}
