import { FEEDBACK_ENTITIES } from './feedback';
import { COMPACTION_ENTITIES } from './compaction';
import { RECALL_EVENT_ENTITIES } from './recall-events';
import { RETENTION_ENTITIES } from './retention';
import { TENANCY_ENTITIES } from './tenancy';
import { TOOL_RESULT_ENTITIES } from './tool-results';

/**
 * Every module's entities, for what runs outside the Nest app and needs them all at once: the
 * MikroORM CLI (migration drift), the export CLI and the tests. The app itself lets each module
 * register its own.
 */
export const APP_ENTITIES = [
  ...TENANCY_ENTITIES,
  ...TOOL_RESULT_ENTITIES,
  ...COMPACTION_ENTITIES,
  ...RECALL_EVENT_ENTITIES,
  ...FEEDBACK_ENTITIES,
  ...RETENTION_ENTITIES,
];
