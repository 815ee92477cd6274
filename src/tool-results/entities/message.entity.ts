import { Entity, Index, ManyToOne, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { User } from '../../tenancy';
import { Conversation } from './conversation.entity';

/** The assistant message that incorporated tool calls; exists for the snapshots' foreign key. */
@Entity({ tableName: 'messages' })
export class Message {
  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Index()
  @ManyToOne(() => Conversation, { deleteRule: 'cascade', fieldName: 'conversation_id' })
  conversation: Conversation;

  @Index()
  @ManyToOne(() => User, { deleteRule: 'cascade', fieldName: 'user_id' })
  user: User;

  @Property({ type: 'varchar', length: 32 })
  role: string & Opt = 'assistant';

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
