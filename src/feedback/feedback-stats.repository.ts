import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../database/run-sql';
import { type FeedbackEventFilter, filterSql, VISIBLE } from './feedback-event.repository';
import { FeedbackStatsGroupBy, type SeriesRange } from './feedback-stats-series';

export interface FeedbackStatsRow {
  group: string | null;
  /** The bucket's start, for a time series; null for the other groupings. */
  bucketStart: Date | null;
  events: number;
  usedRate: number;
  answerSupportedRate: number;
  averageQuality: number | null;
  missingContextRate: number;
  irrelevantRate: number;
}

type LabelGrouping = Exclude<FeedbackStatsGroupBy, FeedbackStatsGroupBy.DAY | FeedbackStatsGroupBy.WEEK>;

const GROUP_COLUMNS: Record<LabelGrouping, string> = {
  [FeedbackStatsGroupBy.NONE]: 'null::text',
  [FeedbackStatsGroupBy.SEARCH_FRESHNESS]: 'f.search_freshness',
  [FeedbackStatsGroupBy.CONTRACT_VERSION]: 'f.contract_version',
  [FeedbackStatsGroupBy.FUSION_MODE]: 'f.fusion_mode',
};

/**
 * The rates of R-FB-9 over the events of a group (alias f). Every rate's denominator is all
 * events of the group (an unanswered answerSupported counts as not supported); the average
 * quality (LOW=1, MEDIUM=2, HIGH=3) is over the events that gave one, null without any.
 */
const RATES = `count(*) as events,
  avg(case when f.used then 1.0 else 0.0 end) as used_rate,
  avg(case when f.answer_supported then 1.0 else 0.0 end) as supported_rate,
  avg(case f.quality when 'LOW' then 1.0 when 'MEDIUM' then 2.0 when 'HIGH' then 3.0 end) as quality,
  avg(case when f.missing_context then 1.0 else 0.0 end) as missing_rate,
  avg(case when f.irrelevant then 1.0 else 0.0 end) as irrelevant_rate`;

interface RatesRow {
  grp: string | null;
  events: string | number;
  used_rate: string | null;
  supported_rate: string | null;
  quality: string | null;
  missing_rate: string | null;
  irrelevant_rate: string | null;
}

/** Feedback's aggregates (R-FB-9), over the team's visible events only, like the inspection's list. */
@Injectable()
export class FeedbackStatsRepository {
  constructor(private readonly em: EntityManager) {}

  /** One aggregate, grouped by nothing or by a label the recall gave itself. */
  async grouped(teamId: string, filter: FeedbackEventFilter, groupBy: LabelGrouping): Promise<FeedbackStatsRow[]> {
    const { where, params } = filterSql(teamId, filter);
    const rows = await runSql<RatesRow[]>(
      this.em,
      `select ${GROUP_COLUMNS[groupBy]} as grp, ${RATES}
         from feedback_events f ${VISIBLE}
        where ${where.join(' and ')}
        group by 1
        order by 1 nulls first`,
      [teamId, ...params],
    );
    return rows.map((r) => toStatsRow(r, null));
  }

  /**
   * A time series: the filtered events aggregated by UTC bucket, every bucket of the range
   * present in ascending order (an empty one with 0 events, rates 0 and a null average quality).
   * The filter's since/until are the range's.
   */
  async series(teamId: string, filter: FeedbackEventFilter, range: SeriesRange): Promise<FeedbackStatsRow[]> {
    const { where, params } = filterSql(teamId, { ...filter, since: range.since, until: range.until });
    // The series steps through UTC dates (timestamp without time zone), whatever the session's time zone.
    const rows = await runSql<RatesRow[]>(
      this.em,
      `with agg as (
         select date_trunc(?, f.created_at, 'UTC') as bucket, ${RATES}
           from feedback_events f ${VISIBLE}
          where ${where.join(' and ')}
          group by 1)
       select to_char(g.day, 'YYYY-MM-DD') as grp, coalesce(a.events, 0) as events,
              coalesce(a.used_rate, 0) as used_rate, coalesce(a.supported_rate, 0) as supported_rate, a.quality,
              coalesce(a.missing_rate, 0) as missing_rate, coalesce(a.irrelevant_rate, 0) as irrelevant_rate
         from generate_series(?::timestamp, ?::timestamp, make_interval(days => ?)) as g(day)
         left join agg a on a.bucket = g.day at time zone 'UTC'
        order by g.day`,
      [range.unit, teamId, ...params, utcDate(range.firstBucket), utcDate(range.lastBucket), range.stepDays],
    );
    return rows.map((r) => toStatsRow(r, new Date(`${r.grp}T00:00:00.000Z`)));
  }
}

/** The UTC date of a bucket start, YYYY-MM-DD. */
function utcDate(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

function toStatsRow(r: RatesRow, bucketStart: Date | null): FeedbackStatsRow {
  return {
    group: r.grp,
    bucketStart,
    events: Number(r.events),
    usedRate: Number(r.used_rate),
    answerSupportedRate: Number(r.supported_rate),
    averageQuality: r.quality === null ? null : Number(r.quality),
    missingContextRate: Number(r.missing_rate),
    irrelevantRate: Number(r.irrelevant_rate),
  };
}
