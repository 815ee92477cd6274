import { Entity, Enum, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team } from './team.entity';

export enum SpaceStatus {
  ACTIVE = 'ACTIVE',
  SEALED = 'SEALED',
  RETIRED = 'RETIRED',
}

/**
 * A team's unit of recall scope. Recall and feedback events remember the space and its
 * generation; bumping the generation or leaving ACTIVE invalidates what was recorded before.
 */
@Entity({ tableName: 'spaces' })
export class Space {
  [PrimaryKeyProp]?: ['team', 'id'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Property({ type: 'varchar', length: 200 })
  name: string;

  @Property({ type: 'integer', default: 1 })
  generation: number & Opt = 1;

  @Enum({ items: () => SpaceStatus, nativeEnumName: 'space_status', default: SpaceStatus.ACTIVE })
  status: SpaceStatus & Opt = SpaceStatus.ACTIVE;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
