import { arrayLiteral, runSql } from '../../database/run-sql';
import { type StoredToolSetting, TeamToolSettingsRepository, type ToolSettingsTable } from '../../database/team-tool-settings.repository';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

/** A team's summary rule document for one tool, as stored (R-RC-3): `rule` as it was set (checked then), in `jsonb`'s key order. */
export type StoredSummaryRule = StoredToolSetting<{ rule: unknown }>;

const RULE_DOCUMENTS: ToolSettingsTable<{ rule: unknown }, { rule: unknown }> = {
  table: 'tool_summary_rules',
  columns: [{ name: 'rule', cast: '::jsonb' }],
  values: ({ rule }) => [JSON.stringify(rule)],
  fromRow: ({ rule }) => ({ rule }),
};

/** Teams' summary rule documents, one per (team, tool). Every statement names the team. */
@Injectable()
export class TeamSummaryRulesRepository {
  private readonly stored: TeamToolSettingsRepository<{ rule: unknown }, { rule: unknown }>;

  constructor(private readonly em: EntityManager) {
    this.stored = new TeamToolSettingsRepository(em, RULE_DOCUMENTS);
  }

  /** The team's documents, by tool name. */
  listForTeam(teamId: string): Promise<StoredSummaryRule[]> {
    return this.stored.listForTeam(teamId);
  }

  /**
   * The team's documents for these tools only: the write path's read, one round trip for a whole
   * batch (`tool_summary_rules_of` makes the team setting itself; its current body is in schema.sql).
   */
  async findForTools(teamId: string, toolNames: readonly string[]): Promise<{ toolName: string; rule: unknown }[]> {
    const rows = await runSql<{ tool_name: string; rule: unknown }[]>(
      this.em,
      'select tool_name, rule from tool_summary_rules_of(?::uuid, ?::text[])',
      [teamId, arrayLiteral(toolNames)],
      { setsOwnScope: true },
    );
    return rows.map((r) => ({ toolName: r.tool_name, rule: r.rule }));
  }

  /**
   * Creates the team's document for a tool (version 1) or replaces it (version + 1); the same
   * document again changes nothing. Null, with nothing written: the team already holds
   * `maxDocuments` documents and none for this tool.
   */
  upsert(teamId: string, toolName: string, rule: object, maxDocuments: number): Promise<StoredSummaryRule | null> {
    return this.stored.upsert(teamId, toolName, { rule }, maxDocuments);
  }

  /** True when the team had a document for the tool. */
  delete(teamId: string, toolName: string): Promise<boolean> {
    return this.stored.delete(teamId, toolName);
  }
}
