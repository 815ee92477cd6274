import { threadId } from 'node:worker_threads';
import { pooledTaskHandler } from '../pooled-task';

/**
 * A worker for the pool's own spec: answers `value`, after holding its thread `busyMs` in a plain
 * loop — outside any `vm` timeout, as native work or a library's own loop would be — so only the
 * pool's kill can stop it.
 */
export default pooledTaskHandler(({ value, busyMs }: { value: number; busyMs: number }) => {
  const until = Date.now() + busyMs;
  while (Date.now() < until);
  return { value, threadId };
});
