/** What one run of a path cost; null where that kind was not measured (a function called in process has no pool or database). */
export interface RunFigures {
  /** CPU on the event loop (the service's main thread, or this process's for a function called in process), ms. */
  loopMs: number;
  /**
   * The longest the event loop was held at once during the run, ms: what another team's request
   * could wait behind. A function called in process holds it for the whole of its CPU time.
   */
  holdMs: number;
  /** CPU of the service's worker threads (the pools), ms. */
  poolMs: number | null;
  /** CPU of PostgreSQL's backends, ms. */
  postgresMs: number | null;
  /** Memory the run took at its peak, above what was resident before it, MiB. */
  peakMiB: number | null;
}

/** The figures a row reports: each kind's largest over the runs (contention only ever adds), and how many runs. */
export interface RowFigures extends RunFigures {
  runs: number;
  /** The median event-loop figure, to show how far the largest stands out. */
  loopMedianMs: number;
}

/** Each kind's maximum over `runs`; a kind no run measured stays null. */
export function maxOfRuns(runs: readonly RunFigures[]): RowFigures {
  if (runs.length === 0) throw new Error('maxOfRuns: no runs');
  const largest = (pick: (run: RunFigures) => number | null): number | null => {
    const values = runs.map(pick).filter((value): value is number => value !== null);
    return values.length === 0 ? null : Math.max(...values);
  };
  return {
    loopMs: largest((run) => run.loopMs) as number,
    holdMs: largest((run) => run.holdMs) as number,
    poolMs: largest((run) => run.poolMs),
    postgresMs: largest((run) => run.postgresMs),
    peakMiB: largest((run) => run.peakMiB),
    runs: runs.length,
    loopMedianMs: median(runs.map((run) => run.loopMs)),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
