import { MAX_EXCLUDE_TOOLS } from './compaction';
import { MAX_DEGRADED_BRANCHES, MAX_EVENT_REFS } from './recall-events';
import { MAX_FEEDBACK_ITEMS, MAX_REFS_PER_ITEM } from './feedback';
import { MAX_BATCH_ITEMS } from './tool-results';
import type { ListLimits } from './common/graphql/list-limits';
import type { PayloadSelections } from './common/graphql/payload-values';

/**
 * The bounds of the API's list arguments, checked before an operation runs (R-OP-5); any other
 * list holds at most 100. Each module's own rules check the same bounds again, with messages
 * that name the item.
 */
export const API_LIST_LIMITS: ListLimits = {
  'recordToolResults.input': MAX_BATCH_ITEMS,
  'compactMessages.input.excludeTools': MAX_EXCLUDE_TOOLS,
  'recordRecallEvent.input.results': MAX_EVENT_REFS,
  'recordRecallEvent.input.degradedBranches': MAX_DEGRADED_BRANCHES,
  'submitRecallFeedback.input.recalls': MAX_FEEDBACK_ITEMS,
  'submitRecallFeedback.input.recalls.irrelevantResultRefs': MAX_REFS_PER_ITEM,
  'submitRecallFeedback.input.recalls.hypothesisFeedback': MAX_REFS_PER_ITEM,
};

/**
 * Where the API returns payloads and what sizes the lists of them, for the count checked against
 * GRAPHQL_MAX_PAYLOAD_VALUES before an operation runs.
 */
export const API_PAYLOAD_SELECTIONS: PayloadSelections = {
  payloadFields: ['ToolResultSnapshot.toolInput', 'ToolResultSnapshot.toolOutput'],
  listSizes: {
    'Query.toolResultHistory': 'first',
    'Query.priorToolResults': 'limit',
    'Query.recallMemory': 'limit',
    'Mutation.recordToolResults': 'input',
  },
};
