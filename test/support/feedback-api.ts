/** Recall feedback's GraphQL operations, as the e2e tests send them, and the shapes they take and answer. */

export const FEEDBACK_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;

export const SUBMIT = `mutation($input: RecallFeedbackBatchInput!) {
  submitRecallFeedback(input: $input) {
    recordedCount feedbackEventIds error { failedIndex code message nextAction remediation }
  }
}`;
const EVENT_FIELDS = `id recallEventId teamId profileId actorId spaceId spaceGeneration used answerSupported quality missingContext irrelevant
  feedbackComment irrelevantResultRefs { type id rank } hypothesisFeedback { hypothesisId used quality contradicted feedbackComment }
  queryFingerprint contractVersion searchFreshness fusionMode degradedBranches returnedRefs { type id rank } clientFeedbackId createdAt`;
export const FEEDBACK_EVENT = `query($id: ID!) { feedbackEvent(id: $id) { ${EVENT_FIELDS} recallEvent { id spaceGeneration } } }`;
export const METRICS = `query($filter: FeedbackEventFilter, $groupBy: FeedbackMetricsGroupBy) {
  feedbackMetrics(filter: $filter, groupBy: $groupBy) { group events usedRate answerSupportedRate averageQuality missingContextRate irrelevantRate }
}`;
export const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { id spaceGeneration results { type id rank } } }`;

export type Quality = 'LOW' | 'MEDIUM' | 'HIGH';
export interface Ref {
  type: string;
  id: string;
  rank?: number | null;
}
interface HypothesisInput {
  hypothesisId: string;
  used?: boolean | null;
  quality?: Quality | null;
  contradicted?: boolean | null;
  feedbackComment?: string | null;
}
export interface FeedbackInput {
  recallEventId: string;
  used: boolean;
  answerSupported?: boolean | null;
  quality?: Quality | null;
  missingContext?: boolean | null;
  irrelevant?: boolean | null;
  feedbackComment?: string | null;
  irrelevantResultRefs?: Ref[] | null;
  hypothesisFeedback?: HypothesisInput[] | null;
  clientFeedbackId?: string | null;
}
export interface BatchError {
  failedIndex: number;
  code: string;
  message: string;
  nextAction: string;
  remediation: string;
}
export interface Payload {
  recordedCount: number;
  feedbackEventIds: string[];
  error: BatchError | null;
}
export interface RecallEventInput {
  spaceId: string;
  query?: string;
  contractVersion?: string;
  rankingVersion?: string | null;
  fusionMode?: string | null;
  searchFreshness?: string | null;
  degradedBranches?: string[];
  results?: Required<Ref>[];
}
export interface MetricsRow {
  group: string | null;
  events: number;
  usedRate: number;
  answerSupportedRate: number;
  averageQuality: number | null;
  missingContextRate: number;
  irrelevantRate: number;
}
