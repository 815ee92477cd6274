/**
 * What the test support opens for a test file (a service with its pools, an ORM, a database) is
 * closed when the file ends, whatever its own hooks managed. A file's afterAll closes what it
 * holds; it cannot close what never reached it: a beforeAll that failed or timed out while
 * createTestApp was still starting leaves `t` unset, and the service it was starting (its pools
 * and server) would keep the jest worker alive until jest kills it ("A worker process has failed
 * to exit gracefully"). So each resource is tracked from the moment it starts until it is closed,
 * and one afterAll, registered when a test file first imports the support, closes the rest.
 *
 * A file's own module registry holds this module, so the set is per test file. The hook is on the
 * root block, registered at import, before any of the file's own: a file's describe-level afterAll
 * hooks run before it, its root-level ones after it (where closing again does nothing).
 */

interface Closable {
  close(): Promise<void>;
}

/** Runs each closing step in turn, the next even when one fails (a pool left open keeps the worker alive); throws the first failure. */
export async function closeEach(steps: (() => Promise<unknown>)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) await step().catch((error: unknown) => errors.push(error));
  if (errors.length > 0) throw errors[0];
}

const starting = new Set<Promise<unknown>>();
const open: Closable[] = [];
let fileEnded = false;

afterAll(async () => {
  fileEnded = true;
  // A hook jest gave up on may still be starting something, and start the next thing once that is up.
  do {
    await Promise.allSettled(starting);
    await new Promise((resolve) => setImmediate(resolve));
  } while (starting.size > 0);
  // Newest first: a replica before the service whose database it shares.
  await closeEach(
    open
      .splice(0)
      .reverse()
      .map((resource) => () => resource.close()),
  );
});

/**
 * Tracks a resource the support is starting until it is closed, and makes its close() safe to call
 * more than once (the file's hook and this module's may both call it).
 */
export async function closedAtFileEnd<T extends Closable>(start: Promise<T>): Promise<T> {
  const startedAfterEnd = fileEnded;
  starting.add(start);
  let resource: T;
  try {
    resource = await start;
  } finally {
    starting.delete(start);
  }
  if (startedAfterEnd) {
    // Started by a hook jest gave up on, once the file had ended: nothing else will close it.
    await resource.close();
    throw new Error('started after the test file ended; closed again');
  }
  const close = resource.close.bind(resource);
  let closing: Promise<void> | undefined;
  resource.close = () => {
    if (closing === undefined) {
      const index = open.indexOf(resource);
      if (index >= 0) open.splice(index, 1);
      closing = close();
    }
    return closing;
  };
  open.push(resource);
  return resource;
}
