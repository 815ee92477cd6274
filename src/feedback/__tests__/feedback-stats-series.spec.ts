import fc from 'fast-check';
import { BadUserInputError } from '../../common/errors/app-error';
import { bucketStartOf, FeedbackStatsGroupBy, MAX_SERIES_BUCKETS, seriesRange } from '../feedback-stats-series';
import { boundedCount, INSPECTION_COUNT_CAP } from '../inspection-count';

const { DAY, WEEK } = FeedbackStatsGroupBy;
const at = (iso: string) => new Date(iso);
const DAY_MS = 86_400_000;

describe('feedbackMetrics series range', () => {
  it('R-FB-9 buckets start at UTC midnight (DAY) or Monday 00:00 UTC (WEEK)', () => {
    expect(bucketStartOf(at('2026-03-01T23:59:59.999Z'), DAY)).toEqual(at('2026-03-01T00:00:00Z'));
    expect(bucketStartOf(at('2026-03-02T00:00:00.000Z'), DAY)).toEqual(at('2026-03-02T00:00:00Z'));
    // Sunday 1 March 2026 belongs to the week of Monday 23 February; Monday 2 March starts the next.
    expect(bucketStartOf(at('2026-03-01T23:59:59.999Z'), WEEK)).toEqual(at('2026-02-23T00:00:00Z'));
    expect(bucketStartOf(at('2026-03-02T00:00:00.000Z'), WEEK)).toEqual(at('2026-03-02T00:00:00Z'));
    expect(bucketStartOf(at('2026-03-08T12:00:00.000Z'), WEEK)).toEqual(at('2026-03-02T00:00:00Z'));
  });

  it('R-FB-9 every instant lies in its bucket, which starts on a UTC midnight (a Monday for WEEK) less than a step before it', () => {
    fc.assert(
      fc.property(fc.date({ min: at('1990-01-01T00:00:00Z'), max: at('2090-01-01T00:00:00Z'), noInvalidDate: true }), (instant) => {
        const day = bucketStartOf(instant, DAY);
        const week = bucketStartOf(instant, WEEK);
        expect(day.getTime() % DAY_MS).toBe(0);
        expect(week.getUTCDay()).toBe(1);
        expect(week.getTime() % DAY_MS).toBe(0);
        expect(instant.getTime() - day.getTime()).toBeGreaterThanOrEqual(0);
        expect(instant.getTime() - day.getTime()).toBeLessThan(DAY_MS);
        expect(instant.getTime() - week.getTime()).toBeGreaterThanOrEqual(0);
        expect(instant.getTime() - week.getTime()).toBeLessThan(7 * DAY_MS);
      }),
      { numRuns: 500, seed: 23 },
    );
  });

  it('R-FB-9 the range covers [since, until): the first bucket holds since, the last the instant before until', () => {
    expect(seriesRange(DAY, at('2026-02-28T00:00:00Z'), at('2026-03-06T00:00:00Z'), new Date())).toMatchObject({
      firstBucket: at('2026-02-28T00:00:00Z'),
      lastBucket: at('2026-03-05T00:00:00Z'),
      bucketCount: 6,
      unit: 'day',
      stepDays: 1,
    });
    expect(seriesRange(WEEK, at('2026-02-28T00:00:00Z'), at('2026-03-10T00:00:00Z'), new Date())).toMatchObject({
      firstBucket: at('2026-02-23T00:00:00Z'),
      lastBucket: at('2026-03-09T00:00:00Z'),
      bucketCount: 3,
      unit: 'week',
      stepDays: 7,
    });
    expect(seriesRange(DAY, at('2026-03-01T12:00:00Z'), at('2026-03-01T12:00:00.001Z'), new Date()).bucketCount).toBe(1);
  });

  it('R-FB-9 defaults: until now, since UTC midnight 29 days before today', () => {
    const now = at('2026-12-01T15:30:00Z');
    expect(seriesRange(DAY, null, null, now)).toMatchObject({
      since: at('2026-11-02T00:00:00Z'),
      until: now,
      firstBucket: at('2026-11-02T00:00:00Z'),
      lastBucket: at('2026-12-01T00:00:00Z'),
      bucketCount: 30,
    });
    // 2 November 2026 is a Monday; 1 December a Tuesday.
    expect(seriesRange(WEEK, null, null, now)).toMatchObject({ firstBucket: at('2026-11-02T00:00:00Z'), bucketCount: 5 });
  });

  it('R-FB-9 refuses more than 400 buckets and a since not before until, naming the field', () => {
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(BadUserInputError);
        return { message: (error as Error).message, field: (error as BadUserInputError).details.field };
      }
      throw new Error('expected a refusal');
    };
    expect(refusal(() => seriesRange(DAY, at('2024-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z'), new Date()))).toEqual({
      field: 'filter.since',
      message: 'filter.since: the range spans 731 DAY buckets; at most 400 — narrow since/until or group by WEEK.',
    });
    expect(seriesRange(DAY, at('2025-01-01T00:00:00Z'), at('2026-02-05T00:00:00Z'), new Date()).bucketCount).toBe(MAX_SERIES_BUCKETS);
    expect(() => seriesRange(DAY, at('2025-01-01T00:00:00Z'), at('2026-02-05T00:00:00.001Z'), new Date())).toThrow(BadUserInputError);
    expect(refusal(() => seriesRange(WEEK, at('2026-03-02T00:00:00Z'), at('2026-03-02T00:00:00Z'), new Date())).field).toBe('filter.since');
    expect(refusal(() => seriesRange(WEEK, null, at('2020-01-01T00:00:00Z'), at('2026-12-01T00:00:00Z'))).field).toBe('filter.until');
  });
});

describe('inspection count', () => {
  it('R-FB-8 exact up to INSPECTION_COUNT_CAP, the cap and not exact past it', () => {
    expect(INSPECTION_COUNT_CAP).toBe(10_000);
    expect(boundedCount(0)).toEqual({ totalCount: 0, totalCountIsExact: true });
    expect(boundedCount(10_000)).toEqual({ totalCount: 10_000, totalCountIsExact: true });
    expect(boundedCount(10_001)).toEqual({ totalCount: 10_000, totalCountIsExact: false });
    expect(boundedCount(4, 3)).toEqual({ totalCount: 3, totalCountIsExact: false });
  });
});
