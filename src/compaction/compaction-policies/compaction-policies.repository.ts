import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../database/run-sql';
import { type StoredToolSetting, TeamToolSettingsRepository, type ToolSettingsTable } from '../../database/team-tool-settings.repository';
import type { ToolCompactionPolicy } from './compaction-policy.checks';

/** A policy's own columns: everything but the tool it is for. */
type PolicyColumns = Omit<ToolCompactionPolicy, 'toolName'>;

/** A team's compaction policy for one tool, as stored (R-LG-4). */
export type StoredCompactionPolicy = StoredToolSetting<PolicyColumns>;

interface PolicyRow {
  tool_name: string;
  never_compact: boolean;
  keep_last_n: number | null;
  size_threshold: number | null;
  clear_inputs: boolean;
}

const POLICIES: ToolSettingsTable<PolicyColumns, PolicyRow> = {
  table: 'tool_compaction_policies',
  columns: [
    { name: 'never_compact' },
    { name: 'keep_last_n', cast: '::int' },
    { name: 'size_threshold', cast: '::int' },
    { name: 'clear_inputs' },
  ],
  values: (p) => [p.neverCompact, p.keepLastN, p.sizeThreshold, p.clearInputs],
  fromRow: (row) => ({
    neverCompact: row.never_compact,
    keepLastN: row.keep_last_n,
    sizeThreshold: row.size_threshold,
    clearInputs: row.clear_inputs,
  }),
};

/** Teams' compaction policies, one per (team, tool). Every statement names the team. */
@Injectable()
export class CompactionPoliciesRepository {
  private readonly stored: TeamToolSettingsRepository<PolicyColumns, PolicyRow>;

  constructor(private readonly em: EntityManager) {
    this.stored = new TeamToolSettingsRepository(em, POLICIES);
  }

  /** The team's policies, by tool name, with their versions. */
  listForTeam(teamId: string): Promise<StoredCompactionPolicy[]> {
    return this.stored.listForTeam(teamId);
  }

  /**
   * The team's policies for compaction: one round trip, with no transaction of its own
   * (`tool_compaction_policies_of` makes the team setting itself; its current body is in schema.sql).
   */
  async settingsForTeam(teamId: string): Promise<ToolCompactionPolicy[]> {
    const rows = await runSql<PolicyRow[]>(
      this.em,
      'select tool_name, never_compact, keep_last_n, size_threshold, clear_inputs from tool_compaction_policies_of(?::uuid)',
      [teamId],
      { setsOwnScope: true },
    );
    return rows.map(toPolicy);
  }

  /**
   * Creates the team's policy for a tool (version 1) or replaces it (version + 1); the same policy
   * again changes nothing. Null, with nothing written: the team already holds `maxPolicies`
   * policies and none for this tool.
   */
  upsert(teamId: string, { toolName, ...policy }: ToolCompactionPolicy, maxPolicies: number): Promise<StoredCompactionPolicy | null> {
    return this.stored.upsert(teamId, toolName, policy, maxPolicies);
  }

  /** True when the team had a policy for the tool. */
  delete(teamId: string, toolName: string): Promise<boolean> {
    return this.stored.delete(teamId, toolName);
  }
}

function toPolicy(row: PolicyRow): ToolCompactionPolicy {
  return { toolName: row.tool_name, ...POLICIES.fromRow(row) };
}
