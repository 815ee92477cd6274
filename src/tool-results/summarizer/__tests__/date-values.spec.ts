import fc from 'fast-check';
import { parseDateLike } from '../date-values';
import { parseDateLikeBefore } from './summarizer-before-budget';

const digits = (length: number, max: number) => fc.noBias(fc.integer({ min: 0, max })).map((n) => String(n).padStart(length, '0'));

/** Strings shaped like ISO dates, out-of-range fields and odd zones included. */
const isoLike = fc
  .record({
    year: fc.oneof(digits(4, 9999), digits(4, 120)),
    month: digits(2, 19),
    day: digits(2, 39),
    separator: fc.constantFrom('T', ' ', 't', ''),
    time: fc.option(fc.tuple(digits(2, 29), digits(2, 69)), { nil: undefined }),
    second: fc.option(digits(2, 69), { nil: undefined }),
    fraction: fc.option(fc.stringMatching(/^\d{1,11}$/), { nil: undefined }),
    zone: fc.option(
      fc.oneof(
        fc.constant('Z'),
        fc.tuple(fc.constantFrom('+', '-'), digits(2, 29), fc.constantFrom(':', ''), digits(2, 69)).map((parts) => parts.join('')),
      ),
      { nil: undefined },
    ),
  })
  .map(({ year, month, day, separator, time, second, fraction, zone }) => {
    let text = `${year}-${month}-${day}`;
    if (time === undefined) return zone === undefined ? text : text + zone;
    text += `${separator}${time[0]}:${time[1]}`;
    if (second !== undefined) text += `:${second}${fraction === undefined ? '' : `.${fraction}`}`;
    return text + (zone ?? '');
  });

describe('parseDateLike', () => {
  it('R-RC-3 gives the instant the parser gave before, for date-like strings valid and not', () => {
    fc.assert(
      fc.property(fc.oneof(isoLike, fc.string({ maxLength: 45 })), (text) => {
        expect(parseDateLike(text)).toBe(parseDateLikeBefore(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('R-RC-3 reads leap days, zones and the odd cases the engine decides as before', () => {
    const cases = [
      '2024-02-29',
      '2023-02-29',
      '1900-02-29',
      '2000-02-29',
      '2026-04-31',
      '2024-04-31',
      '2024-02-30',
      '2026-05-10T08:00:00+02:00',
      '2026-05-10 08:00-0530',
      '2026-05-10T08:00:00.123456789Z',
      '2026-12-31T24:00:00Z',
      '2026-12-31T24:00:01Z',
      '2026-01-01T00:00+24:00',
      '0000-01-01',
      '0099-12-31T23:59:59Z',
      '9999-12-31T23:59:59.999-23:59',
      '2026-1-01',
      '2026-01-01T',
    ];
    for (const text of cases) expect([text, parseDateLike(text)]).toEqual([text, parseDateLikeBefore(text)]);
    expect(parseDateLike('2026-05-10T08:00:00+02:00')).toBe(Date.UTC(2026, 4, 10, 6));
    expect(parseDateLike(1_778_400_000, 'created_at')).toBe(1_778_400_000_000);
    expect(parseDateLike(1_778_400_000, 'count')).toBeNull();
  });
});
