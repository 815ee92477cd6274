import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { countChanged, runSql } from '../../database/run-sql';
import type { ToolCompactionPolicy } from './compaction-policy.rules';

/** A team's compaction policy for one tool, as stored (R-LG-4). */
export interface StoredCompactionPolicy extends ToolCompactionPolicy {
  /** 1 when created, one more on each change. */
  version: number;
  updatedAt: Date;
}

interface PolicyRow {
  tool_name: string;
  never_compact: boolean;
  keep_last_n: number | null;
  size_threshold: number | null;
  clear_inputs: boolean;
}

interface StoredRow extends PolicyRow {
  version: number;
  /** timestamptz as text: the driver leaves times to the caller. */
  updated_at: string;
}

const STORED_COLUMNS = 'tool_name, never_compact, keep_last_n, size_threshold, clear_inputs, version, updated_at';

/** Teams' compaction policies, one per (team, tool). Every statement names the team. */
@Injectable()
export class CompactionPoliciesRepository {
  constructor(private readonly em: EntityManager) {}

  /** The team's policies, by tool name, with their versions. */
  async listForTeam(teamId: string): Promise<StoredCompactionPolicy[]> {
    const rows = await runSql<StoredRow[]>(
      this.em,
      `select ${STORED_COLUMNS} from tool_compaction_policies where team_id = ? order by tool_name`,
      [teamId],
    );
    return rows.map(toStored);
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
  async upsert(teamId: string, policy: ToolCompactionPolicy, maxPolicies: number): Promise<StoredCompactionPolicy | null> {
    const { toolName } = policy;
    return this.em.transactional(async (tx) => {
      // Writers of one team's policies take turns on the team's row, so the count below still
      // holds at commit. `no key update` leaves the foreign-key checks of other writes unblocked.
      await runSql(tx, 'select 1 from teams where id = ? for no key update', [teamId]);
      const saved = await runSql<StoredRow[]>(
        tx,
        `insert into tool_compaction_policies as t (team_id, tool_name, never_compact, keep_last_n, size_threshold, clear_inputs, version)
         select ?::uuid, ?, ?, ?::int, ?::int, ?, 1
          where exists (select 1 from tool_compaction_policies where team_id = ? and tool_name = ?)
             or (select count(*) from tool_compaction_policies where team_id = ?) < ?
         on conflict (team_id, tool_name) do update
           set never_compact = excluded.never_compact, keep_last_n = excluded.keep_last_n,
               size_threshold = excluded.size_threshold, clear_inputs = excluded.clear_inputs,
               version = t.version + 1, updated_at = now()
          where (t.never_compact, t.keep_last_n, t.size_threshold, t.clear_inputs)
                is distinct from (excluded.never_compact, excluded.keep_last_n, excluded.size_threshold, excluded.clear_inputs)
         returning ${STORED_COLUMNS}`,
        [
          teamId,
          toolName,
          policy.neverCompact,
          policy.keepLastN,
          policy.sizeThreshold,
          policy.clearInputs,
          teamId,
          toolName,
          teamId,
          maxPolicies,
        ],
      );
      if (saved.length > 0) return toStored(saved[0]);
      // Nothing written: the same policy again (the stored one stands), or the team is at its limit.
      const current = await runSql<StoredRow[]>(
        tx,
        `select ${STORED_COLUMNS} from tool_compaction_policies where team_id = ? and tool_name = ?`,
        [teamId, toolName],
      );
      return current.length > 0 ? toStored(current[0]) : null;
    });
  }

  /** True when the team had a policy for the tool. */
  async delete(teamId: string, toolName: string): Promise<boolean> {
    return (
      (await countChanged(this.em, 'delete from tool_compaction_policies where team_id = ? and tool_name = ?', [teamId, toolName])) > 0
    );
  }
}

function toPolicy(row: PolicyRow): ToolCompactionPolicy {
  return {
    toolName: row.tool_name,
    neverCompact: row.never_compact,
    keepLastN: row.keep_last_n,
    sizeThreshold: row.size_threshold,
    clearInputs: row.clear_inputs,
  };
}

function toStored(row: StoredRow): StoredCompactionPolicy {
  return { ...toPolicy(row), version: row.version, updatedAt: new Date(row.updated_at) };
}
