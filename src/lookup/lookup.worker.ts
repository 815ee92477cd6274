import { payloadTextOfJson } from '../common/text/json-text';
import { pooledTaskHandler } from '../common/workers/pooled-task';
import { searchLines } from './pattern/line-search';
import { searchSubstring } from './substring/substring-search';
import type { LookupAnswer, LookupTask } from './lookup-pool';
import { answerLibraryTask } from './json-path/library-evaluation';

/**
 * A worker thread of the lookup pool (piscina): one library evaluation, pattern search,
 * substring search or stored payload's text per call, off the event loop that serves every team. Kept free of NestJS so a
 * thread starts in milliseconds.
 */
export default pooledTaskHandler((task: LookupTask): LookupAnswer => {
  if (task.kind === 'pattern') return searchLines(task);
  if (task.kind === 'substring') return searchSubstring(task);
  if (task.kind === 'payload_text') return { text: payloadTextOfJson(task.json) };
  return answerLibraryTask(task);
});
