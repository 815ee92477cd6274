import { trendColumns } from '../../admin-console/src/components/trend-columns';
import { filterFromParams } from '../../admin-console/src/pages/feedback-filter';
import { parseRoute, routeHref } from '../../admin-console/src/route-text';

// Issue 23: the console's pure parts — its addresses, the filter they carry to feedbackEvents
// (R-FB-8), and the plot's columns of the daily series (R-FB-9).
describe('admin console addresses', () => {
  it('R-FB-8 an empty hash is the feedback list; a path and its parameters round-trip', () => {
    expect(parseRoute('').path).toEqual(['feedback']);
    expect(parseRoute('#/').path).toEqual(['feedback']);
    const href = routeHref(['feedback', 'fb_01ABC'], { quality: 'LOW', used: '', tool: 'search orders' });
    expect(href).toBe('#/feedback/fb_01ABC?quality=LOW&tool=search+orders');
    const back = parseRoute(href);
    expect(back.path).toEqual(['feedback', 'fb_01ABC']);
    expect(Object.fromEntries(back.params)).toEqual({ quality: 'LOW', tool: 'search orders' });
  });
});

describe('admin console feedback filter', () => {
  it('R-FB-8 the address parameters become the FeedbackEventFilter; unknown values filter nothing', () => {
    const filter = filterFromParams(
      new URLSearchParams('quality=LOW&used=no&supported=yes&missing=yes&comment=no&tool=search_orders&space=s1'),
    );
    expect(filter).toMatchObject({
      quality: 'LOW',
      used: false,
      answerSupported: true,
      missingContext: true,
      irrelevant: null,
      hasComment: false,
      toolName: 'search_orders',
      spaceId: 's1',
    });
    expect(filterFromParams(new URLSearchParams('quality=BAD&used=maybe'))).toMatchObject({ quality: null, used: null });
  });

  it('R-FB-8 a day range is whole UTC days: since from its midnight, until through its end', () => {
    const filter = filterFromParams(new URLSearchParams('since=2026-11-30&until=2026-11-30'));
    expect(filter.since).toBe('2026-11-30T00:00:00.000Z');
    expect(filter.until).toBe('2026-12-01T00:00:00.000Z');
    expect(filterFromParams(new URLSearchParams('since=30/11/2026')).since).toBeNull();
  });
});

describe('admin console trend plot columns', () => {
  it('R-FB-9 days as unix seconds; rates in percent; a day without events is a gap, not a zero', () => {
    const columns = trendColumns([
      { bucketStart: '2026-11-30T00:00:00.000Z', events: 0, usedRate: 0, answerSupportedRate: 0, averageQuality: null },
      { bucketStart: '2026-12-01T00:00:00.000Z', events: 4, usedRate: 0.75, answerSupportedRate: 0.5, averageQuality: 2.25 },
    ]);
    expect(columns).toEqual([
      [Date.UTC(2026, 10, 30) / 1000, Date.UTC(2026, 11, 1) / 1000],
      [null, 75],
      [null, 50],
      [null, 2.25],
    ]);
  });
});
