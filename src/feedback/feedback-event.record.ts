import type { RecallAccount, ResultRef } from '../recall-events';
import type { HypothesisJudgment, ResultRefJudgment } from './feedback-vocabulary';

/** A stored feedback event (R-FB-7): the judgment, with the account its recall gave of itself. */
export interface FeedbackEventRecord extends RecallAccount {
  id: string;
  recallEventId: string;
  teamId: string;
  actorId: string;
  returnedRefs: ResultRef[];
  used: boolean;
  answerSupported: boolean | null;
  quality: string | null;
  missingContext: boolean | null;
  irrelevant: boolean | null;
  feedbackComment: string | null;
  irrelevantResultRefs: ResultRefJudgment[];
  hypothesisFeedback: HypothesisJudgment[];
  clientFeedbackId: string | null;
  createdAt: Date;
  /** created_at with microseconds, for keyset cursors. */
  createdKey: string;
}

export type NewFeedbackEvent = Omit<FeedbackEventRecord, 'createdAt' | 'createdKey'> & {
  /** The item's canonical digest (R-FB-5), kept with a client id only. */
  itemDigest: string | null;
};

export interface FeedbackEventRow {
  id: string;
  recall_event_id: string;
  team_id: string;
  profile_id: string;
  actor_id: string;
  space_id: string;
  space_generation: number;
  query_fingerprint: string | null;
  contract_version: string;
  ranking_version: string | null;
  fusion_mode: string | null;
  search_freshness: string | null;
  degraded_branches: string[];
  returned_refs: ResultRef[];
  tool_names: string[];
  used: boolean;
  answer_supported: boolean | null;
  quality: string | null;
  missing_context: boolean | null;
  irrelevant: boolean | null;
  feedback_comment: string | null;
  irrelevant_result_refs: ResultRefJudgment[];
  hypothesis_feedback: HypothesisJudgment[];
  client_feedback_id: string | null;
  created_key: string;
}

export function toFeedbackEventRecord(row: FeedbackEventRow): FeedbackEventRecord {
  return {
    id: row.id,
    recallEventId: row.recall_event_id,
    teamId: row.team_id,
    profileId: row.profile_id,
    actorId: row.actor_id,
    spaceId: row.space_id,
    spaceGeneration: row.space_generation,
    queryFingerprint: row.query_fingerprint,
    contractVersion: row.contract_version,
    rankingVersion: row.ranking_version,
    fusionMode: row.fusion_mode,
    searchFreshness: row.search_freshness,
    degradedBranches: row.degraded_branches,
    returnedRefs: row.returned_refs,
    toolNames: row.tool_names,
    used: row.used,
    answerSupported: row.answer_supported,
    quality: row.quality,
    missingContext: row.missing_context,
    irrelevant: row.irrelevant,
    feedbackComment: row.feedback_comment,
    irrelevantResultRefs: row.irrelevant_result_refs,
    hypothesisFeedback: row.hypothesis_feedback,
    clientFeedbackId: row.client_feedback_id,
    createdAt: new Date(row.created_key),
    createdKey: row.created_key,
  };
}
