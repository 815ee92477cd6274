import { Entity, Index, ManyToOne, type Opt, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Space } from './space.entity';
import { User } from './user.entity';

/** Membership of a user in a space of the same team. */
@Entity({ tableName: 'space_members' })
export class SpaceMember {
  [PrimaryKeyProp]?: ['space', 'user'];

  @ManyToOne(() => Space, { primary: true, deleteRule: 'cascade', fieldName: 'space_id' })
  space: Space;

  // The actor's allowed-space set is looked up by user on every request.
  @Index()
  @ManyToOne(() => User, { primary: true, deleteRule: 'cascade', fieldName: 'user_id' })
  user: User;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
