import { answerLibraryTask, type LibraryAnswer, type LibraryTask } from './library-evaluation';

/**
 * A worker thread of the JSONPath pool (piscina): one library evaluation per call, off the
 * event loop that serves every team. Kept free of NestJS so a thread starts in milliseconds.
 */
export default function evaluateJsonPath(task: LibraryTask): LibraryAnswer {
  return answerLibraryTask(task);
}
