/** The signals that stop the service gracefully. */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Makes `shutdown` the only answer to SIGTERM and SIGINT. The embedded PostgreSQL package's exit
 * hook (async-exit-hook) answers them too: it stops the database and exits with 128 + the signal's
 * number as soon as that is done, racing a graceful stop that finishes in-flight requests first,
 * closes the database itself and exits 0 (R-OP-2).
 */
export function answerShutdownSignals(
  shutdown: (signal: (typeof SHUTDOWN_SIGNALS)[number]) => void,
  target: NodeJS.EventEmitter = process,
): void {
  for (const signal of SHUTDOWN_SIGNALS) {
    target.removeAllListeners(signal);
    target.once(signal, () => shutdown(signal));
  }
}
