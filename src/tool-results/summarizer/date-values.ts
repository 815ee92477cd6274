// ISO 8601 calendar dates, optionally with a time and a zone: what APIs and databases emit.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

// Keys such as created_at, createdAt, updated_on, birth_date, timestamp.
const DATE_KEY = /(?:_at|_AT|At|_on)$|date|Date|DATE|timestamp|Timestamp/;

const LONGEST_ISO_DATE = 40;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MINUTE_MS = 60_000;

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

/**
 * A day that does not exist (2026-02-30) is not a date. Fractions past milliseconds are cut, not
 * rounded. Computed with Date.UTC rather than by formatting and parsing strings: a rule or the
 * generic summary reads this once per row, up to SUMMARY_RULE_ROW_BUDGET times per summary.
 */
function parseIsoDate(text: string): number | null {
  if (text.length > LONGEST_ISO_DATE) return null;
  const match = ISO_DATE.exec(text);
  if (match === null) return null;
  const [, yearText, monthText, dayText, hourText = '00', minuteText = '00', secondText = '00', fraction = '0', zone = 'Z'] = match;
  const [year, month, day] = [Number(yearText), Number(monthText), Number(dayText)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const [hour, minute, second] = [Number(hourText), Number(minuteText), Number(secondText)];
  const msText = fraction.padEnd(3, '0').slice(0, 3);
  const zoneHours = zone === 'Z' ? 0 : Number(zone.slice(1, 3));
  const zoneMinutes = zone === 'Z' ? 0 : Number(zone.slice(-2));
  // Date.UTC reads years 0–99 as 1900–1999, and the engine's parser decides 24:00 and zones past
  // ±23:59: those rare strings take the parser's path.
  if (year < 100 || hour > 23 || minute > 59 || second > 59 || zoneHours > 23 || zoneMinutes > 59) {
    const normalizedZone = zone === 'Z' ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
    const parsed = Date.parse(`${yearText}-${monthText}-${dayText}T${hourText}:${minuteText}:${secondText}.${msText}${normalizedZone}`);
    return Number.isNaN(parsed) ? null : parsed;
  }
  const offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  return Date.UTC(year, month - 1, day, hour, minute, second, Number(msText)) - offsetMinutes * MINUTE_MS;
}

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}
