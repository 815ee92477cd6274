/**
 * feedbackMetrics as a time series (R-FB-9, issue 23): DAY and WEEK buckets in UTC over
 * [since, until), every bucket present, the defaults, and the bounds.
 */
import { createFeedbackApp, fine, newTeam, recallEvent, submitOk, type Team } from '../../support/feedback-fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { series, SERIES, type SeriesRow, setCreatedAt } from '../../support/inspection-api';
import { BUMP, SEAL } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';
import type { FeedbackInput } from '../../support/feedback-api';

const DAY_MS = 86_400_000;
const utcMidnight = (instant: Date) => new Date(Math.floor(instant.getTime() / DAY_MS) * DAY_MS);
const isoDate = (instant: Date) => instant.toISOString().slice(0, 10);

describe('Feedback stats series: feedbackMetrics by day and week (e2e)', () => {
  let t: TestApp;
  let team: Team;
  beforeAll(async () => {
    t = await createFeedbackApp();
    team = await newTeam(t, 3);
    const { admin, member, spaces } = team;
    const [main, toSeal, toBump] = spaces;
    /** One feedback event in `space`, stored at `at`. */
    const judged = async (space: string, at: string, item: Partial<FeedbackInput> = {}) => {
      const [id] = (await submitOk(t, member, [fine(await recallEvent(t, member, { spaceId: space }), item)])).feedbackEventIds;
      await setCreatedAt(t, 'feedback_events', id, at);
    };
    // 1 March 2026 is a Sunday; 2 March a Monday.
    await judged(main, '2026-03-01T23:59:59.999Z', { quality: 'LOW', missingContext: true, feedbackComment: 'Stale.' });
    await judged(main, '2026-03-02T00:00:00.000Z', { quality: 'HIGH' });
    await judged(main, '2026-03-04T12:00:00.000Z', { quality: 'MEDIUM', irrelevant: true, feedbackComment: 'One bad hit.' });
    await judged(main, '2026-03-04T23:59:59.000Z', { used: false, answerSupported: false, quality: null });
    // Never counted: a sealed space's, an earlier generation's, another team's.
    await judged(toSeal, '2026-03-03T10:00:00.000Z');
    await judged(toBump, '2026-03-03T11:00:00.000Z');
    await ok(t, SEAL, { s: toSeal }, admin.token);
    await ok(t, BUMP, { s: toBump }, admin.token);
    const stranger = await newTeam(t);
    const [theirs] = (await submitOk(t, stranger.member, [fine(await recallEvent(t, stranger.member, { spaceId: stranger.spaces[0] }))]))
      .feedbackEventIds;
    await setCreatedAt(t, 'feedback_events', theirs, '2026-03-03T12:00:00.000Z');
  });
  afterAll(() => t.close());

  const empty = (group: string): SeriesRow => ({
    group,
    bucketStart: `${group}T00:00:00.000Z`,
    events: 0,
    usedRate: 0,
    answerSupportedRate: 0,
    averageQuality: null,
    missingContextRate: 0,
    irrelevantRate: 0,
  });

  it('R-FB-9 DAY: one row per UTC day of [since, until) in ascending order, empty days present with 0 events, 0 rates and a null average', async () => {
    const rows = await series(t, team.admin, 'DAY', { since: '2026-02-28T00:00:00.000Z', until: '2026-03-06T00:00:00.000Z' });
    expect(rows.map((r) => r.group)).toEqual(['2026-02-28', '2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05']);
    expect(rows[0]).toEqual(empty('2026-02-28'));
    // The last millisecond of 1 March is 1 March's; midnight is 2 March's (UTC).
    expect(rows[1]).toEqual({
      ...empty('2026-03-01'),
      events: 1,
      usedRate: 1,
      answerSupportedRate: 1,
      averageQuality: 1,
      missingContextRate: 1,
    });
    expect(rows[2]).toEqual({ ...empty('2026-03-02'), events: 1, usedRate: 1, answerSupportedRate: 1, averageQuality: 3 });
    // 3 March: only hidden events (a sealed space, an earlier generation, another team).
    expect(rows[3]).toEqual(empty('2026-03-03'));
    expect(rows[4]).toMatchObject({
      group: '2026-03-04',
      events: 2,
      usedRate: 0.5,
      answerSupportedRate: 0.5,
      averageQuality: 2,
      irrelevantRate: 0.5,
    });
    expect(rows[5]).toEqual(empty('2026-03-05'));

    // A since inside a day: that day's bucket, counting from since; until is exclusive.
    const inside = await series(t, team.admin, 'DAY', { since: '2026-03-01T12:00:00.000Z', until: '2026-03-02T00:00:00.000Z' });
    expect(inside.map((r) => [r.group, r.events])).toEqual([['2026-03-01', 1]]);
    const late = await series(t, team.admin, 'DAY', { since: '2026-03-02T00:00:00.001Z', until: '2026-03-02T00:00:00.002Z' });
    expect(late.map((r) => [r.group, r.events])).toEqual([['2026-03-02', 0]]);

    // The filter applies before bucketing; the other groupings have no bucketStart.
    const low = await series(t, team.admin, 'DAY', {
      since: '2026-03-01T00:00:00.000Z',
      until: '2026-03-05T00:00:00.000Z',
      quality: 'LOW',
    });
    expect(low.map((r) => r.events)).toEqual([1, 0, 0, 0]);
    const none = await series(t, team.admin, 'NONE', { since: '2026-03-01T00:00:00.000Z', until: '2026-03-05T00:00:00.000Z' });
    expect(none).toEqual([expect.objectContaining({ group: null, bucketStart: null, events: 4 })]);
  });

  it('R-FB-9 WEEK: ISO weeks from Monday 00:00 UTC, the first the week holding since', async () => {
    const rows = await series(t, team.admin, 'WEEK', { since: '2026-02-28T00:00:00.000Z', until: '2026-03-10T00:00:00.000Z' });
    expect(rows.map((r) => [r.group, r.bucketStart, r.events])).toEqual([
      ['2026-02-23', '2026-02-23T00:00:00.000Z', 1],
      ['2026-03-02', '2026-03-02T00:00:00.000Z', 3],
      ['2026-03-09', '2026-03-09T00:00:00.000Z', 0],
    ]);
    expect(rows[1]).toMatchObject({ usedRate: 2 / 3, averageQuality: 2.5, irrelevantRate: 1 / 3, missingContextRate: 0 });
    expect(rows[2]).toEqual(empty('2026-03-09'));
  });

  it("R-FB-9 R-TN-5 another team's series over the same days is all empty buckets", async () => {
    const stranger = await newTeam(t);
    const rows = await series(t, stranger.admin, 'DAY', { since: '2026-03-01T00:00:00.000Z', until: '2026-03-05T00:00:00.000Z' });
    expect(rows).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'].map(empty));
  });

  it('R-FB-9 without since/until: 30 daily buckets ending today (UTC), and the weeks holding them', async () => {
    const { member, spaces } = team;
    const today = utcMidnight(new Date());
    const firstDay = new Date(today.getTime() - 29 * DAY_MS);
    const recent = async (at: Date) => {
      const [id] = (await submitOk(t, member, [fine(await recallEvent(t, member, { spaceId: spaces[0] }))])).feedbackEventIds;
      await setCreatedAt(t, 'feedback_events', id, at.toISOString());
    };
    await recent(firstDay);
    await recent(new Date(firstDay.getTime() - 1));
    // Today's, a second ago (not before today's midnight).
    await recent(new Date(Math.max(today.getTime(), Date.now() - 1000)));

    const days = await series(t, team.admin, 'DAY');
    expect(days).toHaveLength(30);
    expect(days[0]).toMatchObject({ group: isoDate(firstDay), events: 1 });
    expect(days.at(-1)).toMatchObject({ group: isoDate(today), events: 1 });
    expect(days.reduce((sum, r) => sum + r.events, 0)).toBe(2);
    for (const [i, row] of days.entries()) expect(row.bucketStart).toBe(new Date(firstDay.getTime() + i * DAY_MS).toISOString());

    const weeks = await series(t, team.admin, 'WEEK');
    const monday = (d: Date) => new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS);
    expect(weeks[0].group).toBe(isoDate(monday(firstDay)));
    expect(weeks.at(-1)!.group).toBe(isoDate(monday(today)));
    expect(weeks).toHaveLength((monday(today).getTime() - monday(firstDay).getTime()) / (7 * DAY_MS) + 1);
    // The first week starts before since: the event just before since is not counted.
    expect(weeks.reduce((sum, r) => sum + r.events, 0)).toBe(2);
  });

  it('R-FB-9 more than 400 buckets, or since not before until, is BAD_USER_INPUT naming the field and what to do', async () => {
    const { admin } = team;
    const twoYears = await gql(
      t,
      SERIES,
      { groupBy: 'DAY', filter: { since: '2024-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' } },
      admin.token,
    );
    const error = expectErrorCode(twoYears, 'BAD_USER_INPUT', { field: 'filter.since' });
    expect(error.message).toBe('filter.since: the range spans 731 DAY buckets; at most 400 — narrow since/until or group by WEEK.');
    // The same range by week is 105 buckets; exactly 400 days is allowed.
    expect(await series(t, admin, 'WEEK', { since: '2024-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' })).toHaveLength(105);
    expect(await series(t, admin, 'DAY', { since: '2025-01-01T00:00:00Z', until: '2026-02-05T00:00:00Z' })).toHaveLength(400);
    const decade = await gql(
      t,
      SERIES,
      { groupBy: 'WEEK', filter: { since: '2010-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' } },
      admin.token,
    );
    expect(expectErrorCode(decade, 'BAD_USER_INPUT', { field: 'filter.since' }).message).toMatch(
      /WEEK buckets; at most 400 — narrow since\/until\.$/,
    );

    for (const filter of [
      { since: '2026-03-02T00:00:00Z', until: '2026-03-02T00:00:00Z' },
      { since: '2026-03-03T00:00:00Z', until: '2026-03-02T00:00:00Z' },
    ]) {
      const res = await gql(t, SERIES, { groupBy: 'DAY', filter }, admin.token);
      expect(expectErrorCode(res, 'BAD_USER_INPUT', { field: 'filter.since' }).message).toMatch(/since before until/);
    }
    // Only until, before the default since: the field to fix is until.
    const early = await gql(t, SERIES, { groupBy: 'WEEK', filter: { until: '2020-01-01T00:00:00Z' } }, admin.token);
    expectErrorCode(early, 'BAD_USER_INPUT', { field: 'filter.until' });
  });
});
