/**
 * Latencies corrected for coordinated omission, as HdrHistogram's `recordValueWithExpectedInterval`
 * does: a client that sends a call every `intervalMs` and waits `latencyMs` for one answer did not
 * send the calls due meanwhile. Those would have waited `latencyMs - intervalMs`,
 * `latencyMs - 2 × intervalMs`, … (down to one interval), and are counted as if sent, so that a
 * stall weighs in the percentiles for as long as it lasted, not as one sample.
 */
export function withMissedCalls(latencyMs: number, intervalMs: number | undefined): number[] {
  const values = [latencyMs];
  if (intervalMs === undefined || intervalMs <= 0) return values;
  for (let missed = latencyMs - intervalMs; missed >= intervalMs; missed -= intervalMs) values.push(missed);
  return values;
}
