import { Entity, Index, ManyToOne, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Space, User } from '../../tenancy';

/** A chat conversation of one user in one space. Clients pass their own UUIDs; we upsert. */
@Entity({ tableName: 'conversations' })
// A space's conversations, and retention's scan of a team's idle ones oldest first (keyset on created_at, id).
@Index({ name: 'conversations_space_age', properties: ['space', 'createdAt', 'id'] })
export class Conversation {
  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Index()
  @ManyToOne(() => User, { deleteRule: 'cascade', fieldName: 'user_id' })
  user: User;

  @ManyToOne(() => Space, { deleteRule: 'cascade', fieldName: 'space_id' })
  space: Space;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
