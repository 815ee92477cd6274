import { arrayLiteral, countChanged, runSql } from '../../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

/** A team's summary rule document for one tool, as stored (R-RC-3). */
export interface StoredSummaryRule {
  toolName: string;
  /** The document as it was set (checked then); `jsonb`'s key order. */
  rule: unknown;
  /** 1 when created, one more on each change. */
  version: number;
  updatedAt: Date;
}

interface StoredRow {
  tool_name: string;
  rule: unknown;
  version: number;
  /** timestamptz as text: the driver leaves times to the caller. */
  updated_at: string;
}

const STORED_COLUMNS = 'tool_name, rule, version, updated_at';

/** Teams' summary rule documents, one per (team, tool). Every statement names the team. */
@Injectable()
export class TeamSummaryRulesRepository {
  constructor(private readonly em: EntityManager) {}

  /** The team's documents, by tool name. */
  async listForTeam(teamId: string): Promise<StoredSummaryRule[]> {
    const rows = await runSql<StoredRow[]>(
      this.em,
      `select ${STORED_COLUMNS} from tool_summary_rules where team_id = ? order by tool_name`,
      [teamId],
    );
    return rows.map(toStored);
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
  async upsert(teamId: string, toolName: string, rule: object, maxDocuments: number): Promise<StoredSummaryRule | null> {
    return this.em.transactional(async (tx) => {
      // Writers of one team's documents take turns on the team's row, so the count below still
      // holds at commit. `no key update` leaves the foreign-key checks of other writes unblocked.
      await runSql(tx, 'select 1 from teams where id = ? for no key update', [teamId]);
      const saved = await runSql<StoredRow[]>(
        tx,
        `insert into tool_summary_rules as t (team_id, tool_name, rule, version)
         select ?::uuid, ?, ?::jsonb, 1
          where exists (select 1 from tool_summary_rules where team_id = ? and tool_name = ?)
             or (select count(*) from tool_summary_rules where team_id = ?) < ?
         on conflict (team_id, tool_name) do update set rule = excluded.rule, version = t.version + 1, updated_at = now()
          where t.rule is distinct from excluded.rule
         returning ${STORED_COLUMNS}`,
        [teamId, toolName, JSON.stringify(rule), teamId, toolName, teamId, maxDocuments],
      );
      if (saved.length > 0) return toStored(saved[0]);
      // Nothing written: the same document again (the stored one stands), or the team is at its limit.
      const current = await runSql<StoredRow[]>(
        tx,
        `select ${STORED_COLUMNS} from tool_summary_rules where team_id = ? and tool_name = ?`,
        [teamId, toolName],
      );
      return current.length > 0 ? toStored(current[0]) : null;
    });
  }

  /** True when the team had a document for the tool. */
  async delete(teamId: string, toolName: string): Promise<boolean> {
    return (await countChanged(this.em, 'delete from tool_summary_rules where team_id = ? and tool_name = ?', [teamId, toolName])) > 0;
  }
}

function toStored(row: StoredRow): StoredSummaryRule {
  return { toolName: row.tool_name, rule: row.rule, version: row.version, updatedAt: new Date(row.updated_at) };
}
