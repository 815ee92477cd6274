import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** A tenant. Created just in time from the first valid token that names it. */
@Entity({ tableName: 'teams' })
export class Team {
  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
