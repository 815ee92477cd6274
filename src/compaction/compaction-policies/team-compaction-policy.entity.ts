import { Entity, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team } from '../../tenancy';

/**
 * A team's compaction policy for one tool (R-LG-4): read by `compactMessages` for the settings a
 * request leaves unsaid. `version` counts the changes (1 when created).
 */
@Entity({ tableName: 'tool_compaction_policies' })
export class TeamCompactionPolicy {
  [PrimaryKeyProp]?: ['team', 'toolName'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'varchar', length: 128 })
  toolName: string;

  @Property({ type: 'boolean' })
  neverCompact: boolean;

  @Property({ type: 'integer', nullable: true })
  keepLastN: number | null;

  @Property({ type: 'integer', nullable: true })
  sizeThreshold: number | null;

  @Property({ type: 'boolean' })
  clearInputs: boolean;

  @Property({ type: 'integer' })
  version: number;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date & Opt = new Date();
}
