import type { HandleFieldsTask } from './handle-fields';
import type { StubOptions } from './stub';
import type { StubSource } from './tool-result-handle';

/** A task of the handle pool's threads: payloads' handle fields, or handles' stubs. */
export type HandleWork = { fields: HandleFieldsTask[] } | { stubs: StubSource[]; options: StubOptions };
