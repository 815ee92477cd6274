import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../../database/run-sql';
import { type FeedbackEventRow, toFeedbackEventRecord } from '../feedback-event.record';
import { FEEDBACK_COLUMNS } from '../feedback-event.repository';
import type { FeedbackExportRecord } from './feedback-case';

/**
 * The query texts of recall events by `team_id:id` (null where none was stored): Recall Events
 * answers it, so this repository reads feedback rows only.
 */
export type QueryTextLookup = (events: readonly { teamId: string; id: string }[]) => Promise<Map<string, string | null>>;

/** Where a page of the export ended: the last row's (created_at, team_id, id). */
interface ExportPosition {
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

/**
 * Reads feedback events for offline evaluation (R-FB-10, `npm run feedback:export`).
 *
 * An OPERATOR tool, not a request path: it has no actor, and unless a team is given it reads
 * the events of ALL teams. Nothing in the service calls it; only the export CLI does, with the
 * operator's DATABASE_URL. Events are read whatever their space's state (an operator reviews
 * cases before they are used; the case carries the space and generation). Run it inside one
 * read-only REPEATABLE READ transaction of `em` for a consistent export.
 */
export class FeedbackExportRepository {
  constructor(
    private readonly em: EntityManager,
    private readonly queryTexts: QueryTextLookup,
  ) {}

  /**
   * One page of the feedback events recorded at or after `since`, of every team (or only
   * `teamId`), oldest first, keyset-paginated on (created_at, team_id, id). Each comes with the
   * query text its recall event stored (only teams that opted in store any); an event whose
   * recall event were gone is exported without one.
   */
  async exportCasesSince(since: Date, options: ExportCasesOptions): Promise<FeedbackExportRecord[]> {
    const where = ['f.created_at >= ?::timestamptz'];
    const params: unknown[] = [since.toISOString()];
    if (options.teamId) {
      where.push('f.team_id = ?::uuid');
      params.push(options.teamId);
    }
    if (options.after) {
      const { createdKey, teamId, id } = options.after;
      where.push('(f.created_at, f.team_id, f.id) > (?::timestamptz, ?::uuid, ?)');
      params.push(createdKey, teamId, id);
    }
    const rows = await runSql<FeedbackEventRow[]>(
      this.em,
      `select ${FEEDBACK_COLUMNS} from feedback_events f
        where ${where.join(' and ')}
        order by f.created_at, f.team_id, f.id
        limit ?`,
      [...params, options.limit],
    );
    const records = rows.map(toFeedbackEventRecord);
    const texts = await this.queryTexts(records.map((r) => ({ teamId: r.teamId, id: r.recallEventId })));
    return records.map((record) => ({ ...record, recallQueryText: texts.get(`${record.teamId}:${record.recallEventId}`) ?? null }));
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
