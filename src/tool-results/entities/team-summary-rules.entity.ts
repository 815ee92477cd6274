import { Entity, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { Team } from '../../tenancy';

/**
 * A team's summary rule document for one tool (R-RC-3): read on every write of that tool's
 * results by the team, in place of the built-in rules. `version` counts the changes (1 when
 * created); the document's own `"version"` is its format.
 */
@Entity({ tableName: 'tool_summary_rules' })
export class TeamSummaryRules {
  [PrimaryKeyProp]?: ['team', 'toolName'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'text' })
  toolName: string;

  @Property({ type: 'jsonb' })
  rule: unknown;

  @Property({ type: 'integer' })
  version: number;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date & Opt = new Date();
}
