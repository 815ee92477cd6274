import { createContext, runInContext } from 'node:vm';

// One context for every run: the timeout is what matters, not isolation. Node's watchdog stops
// whatever JavaScript runs inside runInContext, a library's code included.
const current: { run: () => void } = { run: () => undefined };
const context = createContext({ current });

/**
 * `work()` on this thread, stopped after `timeoutMs` wherever it is (a regular expression, a
 * library's loop), without losing the thread: its value, or `timedOut`. Meant for worker threads.
 */
export function runWithTimeout<T>(work: () => T, timeoutMs: number): { value: T } | { timedOut: true } {
  let outcome: { value: T } | undefined;
  current.run = () => {
    outcome = { value: work() };
  };
  try {
    runInContext('current.run()', context, { timeout: timeoutMs });
    return outcome as { value: T };
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { timedOut: true };
    throw error;
  } finally {
    current.run = () => undefined;
  }
}
