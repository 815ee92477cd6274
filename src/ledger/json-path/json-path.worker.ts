import { type LineSearchAnswer, searchLines } from '../pattern/line-search';
import type { PooledTask } from './json-path-pool';
import { answerLibraryTask, type LibraryAnswer } from './library-evaluation';

/**
 * A worker thread of the JSONPath pool (piscina): one library evaluation or pattern search per
 * call, off the event loop that serves every team. Kept free of NestJS so a thread starts in
 * milliseconds.
 */
export default function runPooledTask({ started, ...task }: PooledTask): LibraryAnswer | LineSearchAnswer {
  // The pool's hard CPU budget starts now.
  started.postMessage(null);
  started.close();
  return task.kind === 'pattern' ? searchLines(task) : answerLibraryTask(task);
}
