import type { PooledTask } from './json-path-pool';
import { answerLibraryTask, type LibraryAnswer } from './library-evaluation';

/**
 * A worker thread of the JSONPath pool (piscina): one library evaluation per call, off the
 * event loop that serves every team. Kept free of NestJS so a thread starts in milliseconds.
 */
export default function evaluateJsonPath({ started, ...task }: PooledTask): LibraryAnswer {
  // The pool's hard CPU budget starts now.
  started.postMessage(null);
  started.close();
  return answerLibraryTask(task);
}
