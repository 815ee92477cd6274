import { maxOfRuns, median, type RunFigures } from '../../bench/inventory/figures';
import { formatFigure, type InventoryRow, renderFindings, renderNotes, renderTable } from '../../bench/inventory/table';

const run = (loopMs: number, more: Partial<RunFigures> = {}): RunFigures => ({
  loopMs,
  holdMs: loopMs / 2,
  poolMs: null,
  postgresMs: null,
  peakMiB: null,
  ...more,
});

function row(id: string, loopMs: number, notes: string[] = []): InventoryRow {
  return {
    id,
    path: `path ${id}`,
    grows: 'payload size',
    bound: 'LIMIT = 1 | 2',
    runsOn: 'event loop',
    worstCase: `case ${id}`,
    figures: { ...maxOfRuns([run(loopMs)]) },
    notes,
  };
}

describe('inventory bench: figures and table', () => {
  it('R-TN-10 reports each kind at its largest over the runs, and the median event-loop figure', () => {
    const figures = maxOfRuns([run(3, { postgresMs: 9, holdMs: 3 }), run(7, { poolMs: 2 }), run(5, { poolMs: 4, postgresMs: 1 })]);
    expect(figures).toEqual({ loopMs: 7, holdMs: 3.5, poolMs: 4, postgresMs: 9, peakMiB: null, runs: 3, loopMedianMs: 5 });
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => maxOfRuns([])).toThrow('no runs');
  });

  it('R-TN-10 shows figures to a tenth below 100 and whole above, a dash where nothing was measured', () => {
    expect(formatFigure(4.96)).toBe('5.0');
    expect(formatFigure(1234.5)).toBe('1,235');
    expect(formatFigure(null)).toBe('—');
  });

  it('R-TN-10 renders one table line per row, escaping pipes, the event-loop and longest-hold figures bold past 5 ms', () => {
    const lines = renderTable([row('E1', 4.9), row('R2', 5.1), row('C1', 12)]).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^\| # \| Path \|.*\| Event loop ms \| Longest hold ms \| Pool ms \| PostgreSQL ms \| Peak MiB \|$/);
    expect(lines[2]).toBe('| E1 | path E1 | payload size | LIMIT = 1 \\| 2 | event loop | case E1 | 4.9 | 2.5 | — | — | — |');
    expect(lines[3]).toContain('| **5.1** | 2.5 |');
    expect(lines[4]).toContain('| **12.0** | **6.0** |');
  });

  it('R-TN-10 lists the rows over the line largest first, and says so when there is none', () => {
    expect(renderFindings([row('A', 6), row('B', 2), row('C', 90)])).toBe(
      [
        'Over 5 ms on the event loop (2 of 3 rows):',
        '- C path C: 90.0 ms, held at once at most 45.0 ms (case C)',
        '- A path A: 6.0 ms, held at once at most 3.0 ms (case A)',
      ].join('\n'),
    );
    expect(renderFindings([row('B', 2)])).toBe('No path takes more than 5 ms of the event loop.');
    expect(renderNotes([row('A', 1, ['cut short']), row('B', 1)])).toBe('- A: cut short');
  });
});
