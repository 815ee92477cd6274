/**
 * Property tests (fast-check) of the cursor parser (R-TR-7, R-FB-8, R-OP-4): `after` is client
 * text, so any string either decodes to a position the database can compare against or is the
 * coded BadUserInputError on the field, never another error (which would reach the client as
 * INTERNAL_SERVER_ERROR).
 */
import fc from 'fast-check';
import { BadUserInputError } from '../../errors/app-error';
import { decodeCursor, encodeCursor } from '../keyset-cursor';

const FEEDBACK_EVENT_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'undefined').toString('base64url');
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` with every field in or just past its range: the regex shape, not always a date. */
const isoShaped = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 999_999 }),
  )
  .map(([y, mo, d, h, mi, s, us]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(us, 6)}Z`);
const realInstant = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((date) => fc.integer({ min: 0, max: 999 }).map((micros) => `${date.toISOString().slice(0, 23)}${pad(micros, 3)}Z`));
const idLike = fc.oneof(fc.uuid(), fc.string(), fc.constant('fb_01JABCDEFGHJKMNPQRSTVWXYZ0'));
const cursorLike = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.jsonValue().map(base64url),
  fc.tuple(fc.oneof(isoShaped, realInstant, fc.string()), idLike).map(base64url),
  fc.tuple(fc.oneof(isoShaped, realInstant), idLike, fc.jsonValue()).map(base64url),
);

/** The instant a decoded createdAt names, to the millisecond, or null when it names none. */
function instantOf(createdAt: string): string | null {
  const millis = `${createdAt.slice(0, 23)}Z`;
  const parsed = new Date(millis);
  return Number.isNaN(parsed.getTime()) ? null : parsed.toISOString();
}

describe('keyset cursors, property-based', () => {
  it.each([
    ['R-TR-7', undefined],
    ['R-FB-8', FEEDBACK_EVENT_ID],
  ])('%s R-OP-4 any string decodes to a real instant and a well-formed id, or is BAD_USER_INPUT on the field', (_ids, idPattern) => {
    fc.assert(
      fc.property(cursorLike, (cursor) => {
        let position;
        try {
          position = decodeCursor(cursor, 'after', idPattern);
        } catch (error) {
          expect(error).toBeInstanceOf(BadUserInputError);
          expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'after' } });
          return;
        }
        // Accepted: the database must be able to read it as a timestamp (no 2026-02-30, no 24:00, no year 0).
        expect(instantOf(position.createdAt)).toBe(`${position.createdAt.slice(0, 23)}Z`);
        expect(position.createdAt.startsWith('0000')).toBe(false);
        expect(decodeCursor(encodeCursor(position), 'after', idPattern)).toEqual(position);
      }),
      { numRuns: 1000 },
    );
  });

  it('R-TR-7 every real instant with microseconds and a UUID round-trips', () => {
    fc.assert(
      fc.property(realInstant, fc.uuid(), (createdAt, id) => {
        expect(decodeCursor(encodeCursor({ createdAt, id }))).toEqual({ createdAt, id });
      }),
    );
  });
});
