// ISO 8601 calendar dates, optionally with a time and a zone: what APIs and databases emit.
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

// Keys such as created_at, createdAt, updated_on, birth_date, timestamp.
const DATE_KEY = /(?:_at|_AT|At|_on)$|date|Date|DATE|timestamp|Timestamp/;

const LONGEST_ISO_DATE = 40;

/**
 * Epoch milliseconds of a date-like value, else null. ISO strings anywhere; numbers only
 * under a date-like key and only in the plausible epoch-seconds or epoch-ms range.
 * A zone-less time is read as UTC, so the result never depends on the host's time zone.
 */
export function parseDateLike(value: unknown, key?: string): number | null {
  if (typeof value === 'string') return parseIsoDate(value);
  if (typeof value !== 'number' || key === undefined || !DATE_KEY.test(key)) return null;
  if (value >= 1e9 && value < 1e10) return value * 1000;
  if (value >= 1e12 && value < 1e13) return value;
  return null;
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function formatUtcDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

function parseIsoDate(text: string): number | null {
  if (text.length > LONGEST_ISO_DATE) return null;
  const match = ISO_DATE.exec(text);
  if (match === null) return null;
  const [, day, hourMinute = '00:00', second = '00', fraction = '0', zone = 'Z'] = match;
  // The engine rolls 2026-02-30 over to March; a date that does not round-trip is not a date.
  const midnight = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(midnight) || formatUtcDate(midnight) !== day) return null;
  const normalizedZone = zone === 'Z' ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  const parsed = Date.parse(`${day}T${hourMinute}:${second}.${ms}${normalizedZone}`);
  return Number.isNaN(parsed) ? null : parsed;
}
