import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { KeysetPosition } from '../common/pagination/keyset-cursor';
import { runSql } from '../database/run-sql';
import { type RecallEventRecord, type RecallEventRow, type RecallEventSource, toRecallEventRecord } from '../recall-events';

export interface RecallEventInspectionFilter {
  spaceId?: string | null;
  since?: Date | null;
  until?: Date | null;
  source?: RecallEventSource | null;
  /** One of the event's tool names. */
  toolName?: string | null;
  /** Some feedback event judges it (true) or none does (false). */
  hasFeedback?: boolean | null;
  /** Its degraded branches are non-empty (true) or empty (false). */
  degraded?: boolean | null;
}

/** A listed recall event, with its time to the microsecond for the keyset cursor. */
export type InspectedRecallEvent = RecallEventRecord & { createdKey: string };

/**
 * The team's visible recall events, alias e: Recall Events' `recall_events_visible(team)` (the
 * events whose space is ACTIVE at the generation they were stored with, R-FB-8), which PostgreSQL
 * inlines; Feedback never names Recall Events' table. Bind the team first.
 */
const VISIBLE_RECALL_EVENTS = 'recall_events_visible(?) e';

/**
 * Admin inspection of the team's recall events (R-FB-8), in Feedback because one filter asks
 * whether feedback judges an event, and Feedback sits above Recall Events.
 */
@Injectable()
export class RecallEventInspectionRepository {
  constructor(private readonly em: EntityManager) {}

  /** Newest first, keyset-paginated on (created_at, id). */
  async list(
    teamId: string,
    filter: RecallEventInspectionFilter,
    after: KeysetPosition | null,
    limit: number,
  ): Promise<InspectedRecallEvent[]> {
    const { where, params } = recallFilterSql(filter);
    if (after) {
      where.push('(e.created_at, e.id) < (?::timestamptz, ?)');
      params.push(after.createdAt, after.id);
    }
    const rows = await runSql<(RecallEventRow & { created_key: string })[]>(
      this.em,
      `select e.*, to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key
         from ${VISIBLE_RECALL_EVENTS}
        where ${where.join(' and ')}
        order by e.created_at desc, e.id desc
        limit ?`,
      [teamId, ...params, limit],
    );
    return rows.map((row) => ({ ...toRecallEventRecord(row), createdKey: row.created_key }));
  }

  /** How many match, reading at most `cap + 1` of them (the page's filter and visibility). */
  async countUpTo(teamId: string, filter: RecallEventInspectionFilter, cap: number): Promise<number> {
    const { where, params } = recallFilterSql(filter);
    const rows = await runSql<{ n: number }[]>(
      this.em,
      `select count(*)::int as n from (select 1 from ${VISIBLE_RECALL_EVENTS} where ${where.join(' and ')} limit ?) capped`,
      [teamId, ...params, cap + 1],
    );
    return rows[0].n;
  }
}

function recallFilterSql(filter: RecallEventInspectionFilter): { where: string[]; params: unknown[] } {
  const where = ['true'];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (filter.spaceId) add('e.space_id = ?', filter.spaceId);
  if (filter.since) add('e.created_at >= ?', filter.since.toISOString());
  if (filter.until) add('e.created_at < ?', filter.until.toISOString());
  if (filter.source) add('e.source = ?', filter.source);
  if (filter.toolName) add('e.tool_names @> array[?::text]', filter.toolName);
  if (filter.degraded !== null && filter.degraded !== undefined)
    where.push(`e.degraded_branches ${filter.degraded ? '<>' : '='} '[]'::jsonb`);
  // Feedback's own table, through its (team_id, recall_event_id) index.
  if (filter.hasFeedback !== null && filter.hasFeedback !== undefined)
    where.push(
      `${filter.hasFeedback ? '' : 'not '}exists (select 1 from feedback_events f where f.team_id = e.team_id and f.recall_event_id = e.id)`,
    );
  return { where, params };
}
