/*
 * Runs in a worker thread of the handle pool (handle-fields-pool.ts): the summary, schema hint,
 * preview and line count of a large payload each take a pass over it (a team's summary rules up to
 * their row budget), which on the main thread would stall every other request meanwhile.
 */
import { pooledTaskHandler } from '../../common/workers/pooled-task';
import { type HandleFields, type HandleFieldsTask, handleFieldsOfText } from './handle-fields';

export default pooledTaskHandler((tasks: HandleFieldsTask[]): HandleFields[] => tasks.map(handleFieldsOfText));
