import { formatUtcDate, parseDateLike } from './date-values';
import type { SummaryPart } from './summary-rule.types';
import { boundLine, isRecord } from '../../common/text/text-bounds';

const NAME_MAX_CHARS = 40;
const UNIT_MAX_CHARS = 12;

/** What a part reads in an output: the value at its path (for most kinds, the rows of an array). */
export function partTarget(part: SummaryPart, output: unknown): unknown {
  return readPath(output, part.path);
}

/**
 * The row visits a part costs (SUMMARY_RULE_ROW_BUDGET): the rows a maxDate or topBy part scans,
 * 1 for a part that reads a length, a unit or two rows.
 */
export function partRowVisits(part: SummaryPart, target: unknown): number {
  const scans = part.kind === 'maxDate' || part.kind === 'topBy';
  return scans && Array.isArray(target) ? Math.max(1, target.length) : 1;
}

/** The text of one rule part from what it reads (`partTarget`), or null when the output does not carry it. */
export function evaluateSummaryPart(part: SummaryPart, target: unknown, output: unknown): string | null {
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
      const unitText = boundLine(unit, UNIT_MAX_CHARS);
      return unitText === '' ? null : `${target.length}-${unitText} ${part.label}`;
    }
    case 'percentChange':
      return Array.isArray(target) ? percentChange(target, part.field) : null;
  }
}

/** Own properties only, so paths such as "constructor" never reach the prototype. */
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
    const ms = isRecord(row) ? parseDateLike(row[field], field) : null;
    if (ms !== null && (newest === null || ms > newest)) newest = ms;
  }
  return newest;
}

// Ties keep the earlier row, so the same rows always name the same winner.
function topRow(rows: readonly unknown[], orderBy: string, nameField: string, suffix: string): string | null {
  let best: { name: string; value: number } | null = null;
  for (const row of rows) {
    if (!isRecord(row)) continue;
    const value = row[orderBy];
    const name = row[nameField];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (typeof name !== 'string' && typeof name !== 'number') continue;
    if (best === null || value > best.value) best = { name: boundLine(String(name), NAME_MAX_CHARS), value };
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
