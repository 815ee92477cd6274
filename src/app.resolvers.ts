import { FEEDBACK_RESOLVERS } from './feedback';
import { COMPACTION_RESOLVERS } from './compaction';
import { LOOKUP_RESOLVERS } from './lookup';
import { RECALL_RESOLVERS } from './recall';
import { RECALL_EVENTS_RESOLVERS } from './recall-events';
import { RETENTION_RESOLVERS } from './retention';
import { TENANCY_RESOLVERS } from './tenancy';
import { TOOL_RESULTS_RESOLVERS } from './tool-results';

/** Every resolver class of the API, for schema generation and the scope snapshot test. */
export const RESOLVERS = [
  ...TENANCY_RESOLVERS,
  ...TOOL_RESULTS_RESOLVERS,
  ...LOOKUP_RESOLVERS,
  ...COMPACTION_RESOLVERS,
  ...RECALL_RESOLVERS,
  ...RECALL_EVENTS_RESOLVERS,
  ...FEEDBACK_RESOLVERS,
  ...RETENTION_RESOLVERS,
];
