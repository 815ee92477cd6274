import { BadUserInputError } from '../common/errors/app-error';

/** What the feedback stats (`feedbackMetrics`) group by (R-FB-9): nothing, a recall label, or a UTC time bucket. */
export enum FeedbackStatsGroupBy {
  NONE = 'NONE',
  SEARCH_FRESHNESS = 'SEARCH_FRESHNESS',
  CONTRACT_VERSION = 'CONTRACT_VERSION',
  FUSION_MODE = 'FUSION_MODE',
  DAY = 'DAY',
  WEEK = 'WEEK',
}

export type TimeGrouping = FeedbackStatsGroupBy.DAY | FeedbackStatsGroupBy.WEEK;

export function isTimeGrouping(groupBy: FeedbackStatsGroupBy): groupBy is TimeGrouping {
  return groupBy === FeedbackStatsGroupBy.DAY || groupBy === FeedbackStatsGroupBy.WEEK;
}

/** A series longer than this is refused: 400 days is a bit more than a year of DAY buckets. */
export const MAX_SERIES_BUCKETS = 400;
/** Without `since`: 30 daily buckets, today's included. */
const DEFAULT_SERIES_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const STEP_DAYS: Record<TimeGrouping, number> = { [FeedbackStatsGroupBy.DAY]: 1, [FeedbackStatsGroupBy.WEEK]: 7 };

/**
 * The buckets of a time series over [since, until): the first is the bucket containing `since`,
 * the last the one containing the instant before `until`. Buckets start at UTC midnight (DAY) or
 * at Monday 00:00 UTC (WEEK, ISO weeks).
 */
export interface SeriesRange {
  /** The events counted: [since, until). */
  since: Date;
  until: Date;
  /** 'day' or 'week', as PostgreSQL's date_trunc names them. */
  unit: 'day' | 'week';
  firstBucket: Date;
  lastBucket: Date;
  bucketCount: number;
  /** Days between bucket starts. */
  stepDays: number;
}

/** The start of the UTC bucket holding `instant`. */
export function bucketStartOf(instant: Date, groupBy: TimeGrouping): Date {
  const midnight = Math.floor(instant.getTime() / DAY_MS) * DAY_MS;
  if (groupBy === FeedbackStatsGroupBy.DAY) return new Date(midnight);
  // getUTCDay: Sunday 0 … Saturday 6; ISO weeks start on Monday.
  const sinceMonday = (new Date(midnight).getUTCDay() + 6) % 7;
  return new Date(midnight - sinceMonday * DAY_MS);
}

/**
 * The series' range from the filter's bounds (R-FB-9). Without `until`: now; without `since`:
 * UTC midnight 29 days before today. `since` must come before `until`, and the range may span
 * at most {@link MAX_SERIES_BUCKETS} buckets; otherwise BAD_USER_INPUT naming the field.
 */
export function seriesRange(groupBy: TimeGrouping, since: Date | null | undefined, until: Date | null | undefined, now: Date): SeriesRange {
  const end = until ?? now;
  const start = since ?? new Date(bucketStartOf(now, FeedbackStatsGroupBy.DAY).getTime() - (DEFAULT_SERIES_DAYS - 1) * DAY_MS);
  if (start.getTime() >= end.getTime()) {
    const field = since ? 'filter.since' : 'filter.until';
    throw new BadUserInputError(
      field,
      `${field}: the series needs since before until (since ${start.toISOString()}${since ? '' : ', the default'}, ` +
        `until ${end.toISOString()}${until ? '' : ', now'}); pass a since earlier than until.`,
    );
  }
  const stepDays = STEP_DAYS[groupBy];
  const firstBucket = bucketStartOf(start, groupBy);
  // The bucket holding the last instant of the range (until is exclusive, PostgreSQL counts microseconds).
  const lastBucket = bucketStartOf(new Date(end.getTime() - 1), groupBy);
  const bucketCount = Math.round((lastBucket.getTime() - firstBucket.getTime()) / (stepDays * DAY_MS)) + 1;
  if (bucketCount > MAX_SERIES_BUCKETS) {
    const advice = groupBy === FeedbackStatsGroupBy.DAY ? 'narrow since/until or group by WEEK' : 'narrow since/until';
    throw new BadUserInputError(
      'filter.since',
      `filter.since: the range spans ${bucketCount} ${groupBy} buckets; at most ${MAX_SERIES_BUCKETS} — ${advice}.`,
    );
  }
  return {
    since: start,
    until: end,
    unit: groupBy === FeedbackStatsGroupBy.DAY ? 'day' : 'week',
    firstBucket,
    lastBucket,
    bucketCount,
    stepDays,
  };
}
