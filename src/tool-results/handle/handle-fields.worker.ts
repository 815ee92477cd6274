/*
 * Runs in a worker thread of the handle pool (handle-fields-pool.ts): the summary, schema hint,
 * preview and line count of a large payload each take a pass over it (a team's summary rules up to
 * their row budget), which on the main thread would stall every other request meanwhile; and the
 * stubs of a batch, whose fitting to their token budget tokenizes each a few times.
 */
import { pooledTaskHandler } from '../../common/workers/pooled-task';
import { type HandleFields, handleFieldsOfText } from './handle-fields';
import type { HandleWork } from './handle-work';
import { renderStub } from './stub';

export default pooledTaskHandler((work: HandleWork): HandleFields[] | string[] =>
  'stubs' in work ? work.stubs.map((handle) => renderStub(handle, work.options)) : work.fields.map(handleFieldsOfText),
);
