// The Recall Events module's public surface: what Recall, Feedback and the app may use.
export { RECALL_EVENT_ENTITIES, RecallAccountColumns, RecallEvent } from './entities';
export { RecallEventModel, ResultRefFields, ResultRefModel, SuggestedActionModel } from './models/recall-event.model';
export {
  type RecallAccount,
  recallAccountOf,
  type RecallEventDraft,
  type RecallEventRecord,
  type RecallEventRow,
  toRecallEventRecord,
} from './recall-event.record';
export {
  BLOCK_RANKING_VERSION,
  FUSION_MODE_SINGLE,
  MAX_DEGRADED_BRANCHES,
  MAX_EVENT_REFS,
  newRecallEventId,
  queryFingerprint,
  RECALL_CONTRACT_VERSION,
  RecallEventSource,
  type ResultRef,
  ResultRefType,
  SEARCH_FRESHNESS_SYNCHRONOUS,
  SEARCH_RANKING_VERSION,
} from './recall-event.checks';
export { type RecallEventOutcome, RecallEventService, type SuggestedAction } from './recall-event.service';
export { RECALL_EVENTS_RESOLVERS, RecallEventsModule } from './recall-events.module';
export { type RecallEventPosition, recallEventJson, RecallEventRepository, type UnplacedRecallEvent } from './recall-event.repository';
