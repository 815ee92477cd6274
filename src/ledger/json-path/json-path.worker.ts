import { pooledTaskHandler } from '../../common/workers/pooled-task';
import { type LineSearchAnswer, searchLines } from '../pattern/line-search';
import type { LookupTask } from './json-path-pool';
import { answerLibraryTask, type LibraryAnswer } from './library-evaluation';

/**
 * A worker thread of the JSONPath pool (piscina): one library evaluation or pattern search per
 * call, off the event loop that serves every team. Kept free of NestJS so a thread starts in
 * milliseconds.
 */
export default pooledTaskHandler((task: LookupTask): LibraryAnswer | LineSearchAnswer =>
  task.kind === 'pattern' ? searchLines(task) : answerLibraryTask(task),
);
