import { Entity, Index, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Space, Team, User } from '../../tenancy';

/**
 * A chat conversation of one user in one space. Clients pass their own UUIDs, which are the
 * team's own: keyed by (team_id, id), the same id in another team is another conversation.
 */
@Entity({ tableName: 'conversations' })
// A space's conversations, and retention's scan of a team's idle ones oldest first (keyset on created_at, id).
@Index({
  name: 'conversations_space_age',
  expression: 'create index "conversations_space_age" on "conversations" ("team_id", "space_id", "created_at", "id")',
})
// A user's deletion finds their conversations by (team_id, user_id).
@Index({
  name: 'conversations_team_user',
  expression: 'create index "conversations_team_user" on "conversations" ("team_id", "user_id")',
})
export class Conversation {
  [PrimaryKeyProp]?: ['team', 'id'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'uuid' })
  id: string;

  @ManyToOne(() => User, { fieldNames: ['team_id', 'user_id'], ownColumns: ['user_id'], deleteRule: 'cascade', updateRule: 'no action' })
  user: User;

  @ManyToOne(() => Space, { fieldNames: ['team_id', 'space_id'], ownColumns: ['space_id'], deleteRule: 'cascade', updateRule: 'no action' })
  space: Space;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
