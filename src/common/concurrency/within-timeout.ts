/**
 * `pending`'s value if it comes within `timeoutMs`; else the promise rejects with `timeoutError()`,
 * and a value that comes later is handed to `late` (a pool connection given back), never dropped.
 * A rejection of `pending` passes through as it is.
 */
export function withinTimeout<T>(pending: Promise<T>, timeoutMs: number, timeoutError: () => Error, late: (value: T) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(timeoutError());
    }, timeoutMs);
    pending.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) late(value);
        else resolve(value);
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
