import { Entity, Index, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team, User } from '../../tenancy';
import { Conversation } from './conversation.entity';

/**
 * The assistant message that incorporated tool calls; exists for the snapshots' foreign key. Its
 * id is the client's, the team's own: keyed by (team_id, id).
 */
@Entity({ tableName: 'messages' })
// A conversation's messages (retention's idle check, the cascade of a conversation's delete).
@Index({
  name: 'messages_team_conversation',
  expression: 'create index "messages_team_conversation" on "messages" ("team_id", "conversation_id")',
})
// A user's deletion.
@Index({
  name: 'messages_team_user',
  expression: 'create index "messages_team_user" on "messages" ("team_id", "user_id")',
})
export class Message {
  [PrimaryKeyProp]?: ['team', 'id'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'uuid' })
  id: string;

  @ManyToOne(() => Conversation, {
    fieldNames: ['team_id', 'conversation_id'],
    ownColumns: ['conversation_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  conversation: Conversation;

  @ManyToOne(() => User, { fieldNames: ['team_id', 'user_id'], ownColumns: ['user_id'], deleteRule: 'cascade', updateRule: 'no action' })
  user: User;

  @Property({ type: 'varchar', length: 32 })
  role: string & Opt = 'assistant';

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
