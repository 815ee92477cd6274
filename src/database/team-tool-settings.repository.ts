import type { EntityManager } from '@mikro-orm/postgresql';
import { countChanged, runSql } from './run-sql';

/** A team's setting for one tool, as stored: the setting, and how often it changed. */
export type StoredToolSetting<Setting> = Setting & {
  toolName: string;
  /** 1 when created, one more on each change. */
  version: number;
  updatedAt: Date;
};

/**
 * One table of per-tool team settings, keyed by (team_id, tool_name) with `version` and
 * `updated_at` columns: the team's compaction policies (R-LG-4) and summary rules (R-RC-3). Its
 * names are the owning repository's constants, never a caller's input.
 */
export interface ToolSettingsTable<Setting, Row extends object> {
  readonly table: string;
  /** The setting's own columns, each with the cast its parameter takes (`rule ?::jsonb`). */
  readonly columns: readonly { readonly name: string; readonly cast?: string }[];
  /** The setting's values, in the order of `columns`. */
  values(setting: Setting): readonly unknown[];
  /** The setting of a stored row (its own columns). */
  fromRow(row: Row): Setting;
}

type StoredRow<Row> = Row & {
  tool_name: string;
  version: number;
  /** timestamptz as text: the driver leaves times to the caller. */
  updated_at: string;
};

/**
 * Lists, sets and deletes a team's per-tool settings in one such table. Every statement names the
 * team. Setting a tool's value creates it (version 1) or replaces it (version + 1); the same value
 * again changes nothing; a team at its limit gets nothing written for a new tool.
 */
export class TeamToolSettingsRepository<Setting, Row extends object> {
  private readonly stored: string;

  constructor(
    private readonly em: EntityManager,
    private readonly spec: ToolSettingsTable<Setting, Row>,
  ) {
    this.stored = ['tool_name', ...spec.columns.map((c) => c.name), 'version', 'updated_at'].join(', ');
  }

  /** The team's settings, by tool name. */
  async listForTeam(teamId: string): Promise<StoredToolSetting<Setting>[]> {
    const rows = await runSql<StoredRow<Row>[]>(
      this.em,
      `select ${this.stored} from ${this.spec.table} where team_id = ? order by tool_name`,
      [teamId],
    );
    return rows.map((row) => this.toStored(row));
  }

  /** The stored setting, or null when the team is at `maxPerTeam` settings and has none for this tool. */
  async upsert(teamId: string, toolName: string, setting: Setting, maxPerTeam: number): Promise<StoredToolSetting<Setting> | null> {
    const { table, columns } = this.spec;
    const names = columns.map((c) => c.name);
    const same = `(${names.map((n) => `t.${n}`).join(', ')}) is distinct from (${names.map((n) => `excluded.${n}`).join(', ')})`;
    return this.em.transactional(async (tx) => {
      // Writers of one team's settings take turns on the team's row, so the count below still
      // holds at commit. `no key update` leaves the foreign-key checks of other writes unblocked.
      await runSql(tx, 'select 1 from teams where id = ? for no key update', [teamId]);
      const saved = await runSql<StoredRow<Row>[]>(
        tx,
        `insert into ${table} as t (team_id, tool_name, ${names.join(', ')}, version)
         select ?::uuid, ?, ${columns.map((c) => `?${c.cast ?? ''}`).join(', ')}, 1
          where exists (select 1 from ${table} where team_id = ? and tool_name = ?)
             or (select count(*) from ${table} where team_id = ?) < ?
         on conflict (team_id, tool_name) do update
           set ${names.map((n) => `${n} = excluded.${n}`).join(', ')}, version = t.version + 1, updated_at = now()
          where ${same}
         returning ${this.stored}`,
        [teamId, toolName, ...this.spec.values(setting), teamId, toolName, teamId, maxPerTeam],
      );
      if (saved.length > 0) return this.toStored(saved[0]);
      // Nothing written: the same setting again (the stored one stands), or the team is at its limit.
      const current = await runSql<StoredRow<Row>[]>(tx, `select ${this.stored} from ${table} where team_id = ? and tool_name = ?`, [
        teamId,
        toolName,
      ]);
      return current.length > 0 ? this.toStored(current[0]) : null;
    });
  }

  /** True when the team had a setting for the tool. */
  async delete(teamId: string, toolName: string): Promise<boolean> {
    return (await countChanged(this.em, `delete from ${this.spec.table} where team_id = ? and tool_name = ?`, [teamId, toolName])) > 0;
  }

  private toStored(row: StoredRow<Row>): StoredToolSetting<Setting> {
    return { ...this.spec.fromRow(row), toolName: row.tool_name, version: row.version, updatedAt: new Date(row.updated_at) };
  }
}
