/**
 * The rule summarizer and the date parser as they were before the row budget (R-RC-3, R-TN-10),
 * kept verbatim as the oracle of the property tests: within its budget the budgeted evaluation
 * gives the same summary, and the arithmetic date parser the same instant.
 */
import { boundLine, isRecord } from '../../../common/text/text-bounds';
import { formatUtcDate } from '../date-values';
import type { SummaryPart, SummaryRule } from '../summary-rule.types';

const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE_KEY = /(?:_at|_AT|At|_on)$|date|Date|DATE|timestamp|Timestamp/;

export function parseDateLikeBefore(value: unknown, key?: string): number | null {
  if (typeof value === 'string') return parseIsoDateBefore(value);
  if (typeof value !== 'number' || key === undefined || !DATE_KEY.test(key)) return null;
  if (value >= 1e9 && value < 1e10) return value * 1000;
  if (value >= 1e12 && value < 1e13) return value;
  return null;
}

function parseIsoDateBefore(text: string): number | null {
  if (text.length > 40) return null;
  const match = ISO_DATE.exec(text);
  if (match === null) return null;
  const [, day, hourMinute = '00:00', second = '00', fraction = '0', zone = 'Z'] = match;
  const midnight = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(midnight) || formatUtcDate(midnight) !== day) return null;
  const normalizedZone = zone === 'Z' ? zone : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  const parsed = Date.parse(`${day}T${hourMinute}:${second}.${ms}${normalizedZone}`);
  return Number.isNaN(parsed) ? null : parsed;
}

/** The line of the first matching rule whose required parts all hold, every part evaluated; null: none. */
export function summarizeByRuleBefore(rules: readonly SummaryRule[], input: unknown, output: unknown): string | null {
  for (const rule of rules) {
    if (!matches(rule, input)) continue;
    const texts: string[] = [];
    let complete = true;
    for (const part of rule.parts) {
      const text = evaluateSummaryPartBefore(part, output);
      if (text !== null) texts.push(text);
      else if (!part.optional) complete = false;
    }
    if (complete && texts.length > 0) return texts.join(', ');
  }
  return null;
}

function matches(rule: SummaryRule, input: unknown): boolean {
  if (rule.when === undefined) return true;
  if (!isRecord(input)) return false;
  return Object.entries(rule.when).every(([key, expected]) => Object.hasOwn(input, key) && input[key] === expected);
}

function evaluateSummaryPartBefore(part: SummaryPart, output: unknown): string | null {
  const target = readPath(output, part.path);
  switch (part.kind) {
    case 'count': {
      if (!Array.isArray(target)) return null;
      return `${target.length} ${target.length === 1 ? (part.singular ?? part.label) : part.label}`;
    }
    case 'maxDate': {
      const newest = Array.isArray(target) ? newestField(target, part.field) : null;
      return newest === null ? null : `${part.label} ${formatUtcDate(newest)}`;
    }
    case 'topBy':
      return Array.isArray(target) ? topRow(target, part.orderBy, part.nameField, part.suffix) : null;
    case 'seriesLength': {
      const unit = readPath(output, part.unitPath);
      if (!Array.isArray(target) || typeof unit !== 'string') return null;
      const unitText = boundLine(unit, 12);
      return unitText === '' ? null : `${target.length}-${unitText} ${part.label}`;
    }
    case 'percentChange':
      return Array.isArray(target) ? percentChange(target, part.field) : null;
  }
}

function readPath(root: unknown, path: string): unknown {
  if (path === '') return root;
  let node = root;
  for (const key of path.split('.')) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function newestField(rows: readonly unknown[], field: string): number | null {
  let newest: number | null = null;
  for (const row of rows) {
    const ms = isRecord(row) ? parseDateLikeBefore(row[field], field) : null;
    if (ms !== null && (newest === null || ms > newest)) newest = ms;
  }
  return newest;
}

function topRow(rows: readonly unknown[], orderBy: string, nameField: string, suffix: string): string | null {
  let best: { name: string; value: number } | null = null;
  for (const row of rows) {
    if (!isRecord(row)) continue;
    const value = row[orderBy];
    const name = row[nameField];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (typeof name !== 'string' && typeof name !== 'number') continue;
    if (best === null || value > best.value) best = { name: boundLine(String(name), 40), value };
  }
  return best === null ? null : `${best.name} ${best.value} ${suffix}`;
}

function percentChange(rows: readonly unknown[], field: string): string | null {
  const first = numberAt(rows[0], field);
  const last = numberAt(rows[rows.length - 1], field);
  if (first === null || last === null || first === 0 || rows.length < 2) return null;
  const percent = Math.round(((last - first) / Math.abs(first)) * 100);
  if (!Number.isFinite(percent)) return null;
  return percent > 0 ? `+${percent}%` : `${percent === 0 ? 0 : percent}%`;
}

function numberAt(row: unknown, field: string): number | null {
  const value = isRecord(row) ? row[field] : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
