import { FEEDBACK_RESOLVERS } from './feedback/feedback.module';
import { RECALL_RESOLVERS } from './recall/recall.module';
import { RETENTION_RESOLVERS } from './retention/retention.module';
import { TENANCY_RESOLVERS } from './tenancy/tenancy.module';
import { TOOL_RESULTS_RESOLVERS } from './tool-results/tool-results.module';

/** Every resolver class of the API, for schema generation and the scope snapshot test. */
export const RESOLVERS = [...TENANCY_RESOLVERS, ...TOOL_RESULTS_RESOLVERS, ...RECALL_RESOLVERS, ...FEEDBACK_RESOLVERS, ...RETENTION_RESOLVERS];
