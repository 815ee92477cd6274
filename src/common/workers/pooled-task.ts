import type { MessagePort } from 'node:worker_threads';

/** A task as a worker thread receives it: the work, and the port it says "started" on. */
export interface PooledTask<T> {
  task: T;
  started: MessagePort;
}

/**
 * A worker module's default export: says "started" (the pool's budget counts from here, not from a
 * thread's start-up), then does the work.
 */
export function pooledTaskHandler<T, A>(answer: (task: T) => A): (pooled: PooledTask<T>) => A {
  return ({ task, started }) => {
    started.postMessage(null);
    started.close();
    return answer(task);
  };
}
