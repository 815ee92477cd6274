// The ToolResults module's public surface: what the modules above it may use.
export type { ConversationPosition } from './conversation.repository';
export { TOOL_RESULT_ENTITIES } from './entities';
export { isToolResultStub } from './handle/stub';
export type { ToolResultHandle } from './handle/tool-result-handle';
export { MEM_ID_PATTERN } from './mem-id';
export { ToolResultHandleModel } from './models/tool-result-handle.model';
export { ReturnedSnapshotModel } from './models/returned-snapshot.model';
export { ToolResultInput } from './models/tool-result.input';
export { ToolResultSnapshotModel } from './models/tool-result-snapshot.model';
export type { JsonSelection, PathLookup, PathValue } from './path-value';
export { recentArguments, searchArguments, type SnapshotScope, snapshotScopeOf, toolNamesArguments } from './snapshot-scope';
export type { ReturnedSnapshot } from './returned-snapshot';
export { formatUtcDate } from './summarizer/date-values';
export { toolNameProblem } from './summarizer/summary-rule-document';
export { MAX_BATCH_ITEMS } from './tool-result-batch.checks';
export {
  type SnapshotColumns,
  type SnapshotSearch,
  type SnapshotSearchHit,
  type ToolResultSnapshot,
  type ToolResultSnapshotRow,
  toSearchHit,
  toToolResultSnapshot,
} from './tool-result-snapshot';
export { TOOL_RESULTS_RESOLVERS, ToolResultsModule } from './tool-results.module';
export { payloadColumnsOf } from './tool-results.resolver';
export { ToolResultDeletions } from './tool-result-deletions.service';
export { ToolResultPathLookups } from './tool-result-path-lookups.service';
export { type HistoryPage, ToolResultReader } from './tool-result-reader.service';
export { ToolResultWriter } from './tool-result-writer.service';
