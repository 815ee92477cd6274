import type { RowFigures } from './figures';

/** One path of the inventory as measured: what grows, what bounds it, where it runs, and its worst case at the limits. */
export interface InventoryRow {
  id: string;
  path: string;
  grows: string;
  /** The setting(s) and value(s) that bound it, or the constant in the code. */
  bound: string;
  runsOn: string;
  /** The input measured: the hardest shape at the configured limits. */
  worstCase: string;
  figures: RowFigures;
  /** What the runs showed besides the figures (outcomes, a deadline that cut a run). */
  notes: string[];
}

/** "A few milliseconds" (issue 53): a path over this on the event loop per request is a finding. */
const EVENT_LOOP_LINE_MS = 5;

const HEADERS = [
  '#',
  'Path',
  'Grows with',
  'Bound',
  'Runs on',
  'Worst case measured',
  'Event loop ms',
  'Longest hold ms',
  'Pool ms',
  'PostgreSQL ms',
  'Peak MiB',
];

/** A figure as the table shows it: one decimal below 100, whole above; none measured: a dash. */
export function formatFigure(value: number | null): string {
  if (value === null) return '—';
  return value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The inventory as a markdown table; an event-loop figure over the line is bold. */
export function renderTable(rows: readonly InventoryRow[]): string {
  const lines = [`| ${HEADERS.join(' | ')} |`, `|${HEADERS.map(() => ' --- ').join('|')}|`];
  for (const row of rows) {
    const loop = formatFigure(row.figures.loopMs);
    const values = [
      row.id,
      row.path,
      row.grows,
      row.bound,
      row.runsOn,
      row.worstCase,
      isFinding(row) ? `**${loop}**` : loop,
      isHolding(row) ? `**${formatFigure(row.figures.holdMs)}**` : formatFigure(row.figures.holdMs),
      formatFigure(row.figures.poolMs),
      formatFigure(row.figures.postgresMs),
      formatFigure(row.figures.peakMiB),
    ];
    lines.push(`| ${values.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

function isFinding(row: InventoryRow): boolean {
  return row.figures.loopMs > EVENT_LOOP_LINE_MS;
}

/** Held the loop past the line at once: no other request ran in that time (the figure is to within 1 ms). */
function isHolding(row: InventoryRow): boolean {
  return row.figures.holdMs > EVENT_LOOP_LINE_MS;
}

/** Each row's notes, one line each, under its id. */
export function renderNotes(rows: readonly InventoryRow[]): string {
  return rows.flatMap((row) => row.notes.map((note) => `- ${row.id}: ${note}`)).join('\n');
}

/** The rows over the event-loop line, largest first, one line each. */
export function renderFindings(rows: readonly InventoryRow[]): string {
  const over = rows.filter(isFinding).sort((a, b) => b.figures.loopMs - a.figures.loopMs);
  if (over.length === 0) return `No path takes more than ${EVENT_LOOP_LINE_MS} ms of the event loop.`;
  return [
    `Over ${EVENT_LOOP_LINE_MS} ms on the event loop (${over.length} of ${rows.length} rows):`,
    ...over.map(
      (row) =>
        `- ${row.id} ${row.path}: ${formatFigure(row.figures.loopMs)} ms, held at once at most ${formatFigure(row.figures.holdMs)} ms (${row.worstCase})`,
    ),
  ].join('\n');
}
