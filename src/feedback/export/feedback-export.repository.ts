import type { Pool, PoolClient } from 'pg';
import { FEEDBACK_COLUMNS, type FeedbackEventRow, toFeedbackEventRecord } from '../feedback-event.record';
import type { FeedbackExportRecord } from './feedback-case';

/** A pg pool, or one client of it (e.g. holding the export's read-only transaction). */
export type Queryable = Pool | PoolClient;

/** Where a page of the export ended: the last row's (created_at, team_id, id). */
export interface ExportPosition {
  /** created_at with microseconds, UTC (the row's `createdKey`). */
  createdKey: string;
  teamId: string;
  id: string;
}

export interface ExportCasesOptions {
  /** Only this team's events; null or absent: EVERY team's. */
  teamId?: string | null;
  /** Keyset: the rows after this position. */
  after?: ExportPosition | null;
  /** Page size. */
  limit: number;
}

type ExportRow = FeedbackEventRow & { recall_query_text: string | null };

/**
 * Reads feedback events for offline evaluation (R-FB-10, `npm run feedback:export`).
 *
 * An OPERATOR tool, not a request path: it has no actor, and unless a team is given it reads
 * the events of ALL teams. Nothing in the service calls it; only the export CLI does, with the
 * operator's DATABASE_URL. Events are read whatever their space's state (an operator reviews
 * cases before they are used; the case carries the space and generation).
 */
export class FeedbackExportRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * One page of the feedback events recorded at or after `since`, of every team (or only
   * `teamId`), oldest first, keyset-paginated on (created_at, team_id, id). Each comes with the
   * query text its recall event stored (only teams that opted in store any), read through a
   * left join, so an event is exported even if its recall event were gone.
   */
  async exportCasesSince(since: Date, options: ExportCasesOptions): Promise<FeedbackExportRecord[]> {
    const where = ['f.created_at >= $1::timestamptz'];
    const params: unknown[] = [since.toISOString()];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    if (options.teamId) where.push(`f.team_id = ${param(options.teamId)}::uuid`);
    if (options.after) {
      const { createdKey, teamId, id } = options.after;
      where.push(`(f.created_at, f.team_id, f.id) > (${param(createdKey)}::timestamptz, ${param(teamId)}::uuid, ${param(id)})`);
    }
    const { rows } = await this.db.query<ExportRow>(
      `select ${FEEDBACK_COLUMNS}, e.query_text as recall_query_text
         from feedback_events f
         left join recall_events e on e.team_id = f.team_id and e.id = f.recall_event_id
        where ${where.join(' and ')}
        order by f.created_at, f.team_id, f.id
        limit ${param(options.limit)}`,
      params,
    );
    return rows.map((row) => ({ ...toFeedbackEventRecord(row), recallQueryText: row.recall_query_text }));
  }

  /** Every page of {@link exportCasesSince}, in order. */
  async *exportAllCasesSince(since: Date, teamId: string | null, pageSize = 500): AsyncGenerator<FeedbackExportRecord> {
    let after: ExportPosition | null = null;
    for (;;) {
      const page = await this.exportCasesSince(since, { teamId, after, limit: pageSize });
      yield* page;
      if (page.length < pageSize) return;
      const last = page[page.length - 1];
      after = { createdKey: last.createdKey, teamId: last.teamId, id: last.id };
    }
  }
}
