import type { FeedbackEventRecord } from '../feedback-event.record';
import { redactNullable } from './redact';

/**
 * A feedback event as a versioned, redacted evaluation case (R-FB-10). Pure: the repository
 * reads the rows, this decides what leaves the database.
 *
 * - `query` is the recall's query text only when the recall event stored it (its team enabled
 *   `recall_query_text_enabled`); otherwise null, and the case carries the fingerprint alone.
 * - Every comment (the event's and each hypothesis judgment's) is redacted; comments retention
 *   already cleared stay null.
 * - Nothing of the submitter or the recall's user leaves: a case says which team and space, never who.
 */

export const FEEDBACK_CASE_SCHEMA = 'recall-ledger.feedback-case.v1';

interface CaseRef {
  type: string;
  id: string;
  rank: number | null;
}

interface CaseHypothesisJudgment {
  hypothesisId: string;
  used: boolean | null;
  quality: string | null;
  contradicted: boolean | null;
  feedbackComment: string | null;
}

export interface FeedbackCase {
  schema: typeof FEEDBACK_CASE_SCHEMA;
  /** The feedback event's id. */
  caseId: string;
  recallEventId: string;
  teamId: string;
  spaceId: string;
  spaceGeneration: number;
  /** When the feedback was recorded (ISO 8601, UTC). */
  createdAt: string;
  contractVersion: string;
  rankingVersion: string | null;
  fusionMode: string | null;
  searchFreshness: string | null;
  degradedBranches: string[];
  queryFingerprint: string | null;
  /** Only when the team opted in to storing query text; null otherwise. */
  query: string | null;
  returnedRefs: CaseRef[];
  judgment: {
    used: boolean;
    answerSupported: boolean | null;
    quality: string | null;
    missingContext: boolean | null;
    irrelevant: boolean | null;
    irrelevantResultRefs: CaseRef[];
    hypothesisFeedback: CaseHypothesisJudgment[];
  };
  /** The feedback comment, redacted. */
  comment: string | null;
}

/** A feedback event as exported: the event, and the recall event's stored query text if any. */
export interface FeedbackExportRecord extends FeedbackEventRecord {
  /** recall_events.query_text: set only for teams that opted in; null when the recall event is gone. */
  recallQueryText: string | null;
}

export function buildFeedbackCase(record: FeedbackExportRecord): FeedbackCase {
  return {
    schema: FEEDBACK_CASE_SCHEMA,
    caseId: record.id,
    recallEventId: record.recallEventId,
    teamId: record.teamId,
    spaceId: record.spaceId,
    spaceGeneration: record.spaceGeneration,
    createdAt: record.createdAt.toISOString(),
    contractVersion: record.contractVersion,
    rankingVersion: record.rankingVersion,
    fusionMode: record.fusionMode,
    searchFreshness: record.searchFreshness,
    degradedBranches: [...(record.degradedBranches ?? [])],
    queryFingerprint: record.queryFingerprint,
    query: record.recallQueryText ?? null,
    returnedRefs: (record.returnedRefs ?? []).map(toCaseRef),
    judgment: {
      used: record.used,
      answerSupported: record.answerSupported,
      quality: record.quality,
      missingContext: record.missingContext,
      irrelevant: record.irrelevant,
      irrelevantResultRefs: (record.irrelevantResultRefs ?? []).map(toCaseRef),
      hypothesisFeedback: (record.hypothesisFeedback ?? []).map((h) => ({
        hypothesisId: h.hypothesisId,
        used: h.used ?? null,
        quality: h.quality ?? null,
        contradicted: h.contradicted ?? null,
        feedbackComment: redactNullable(h.feedbackComment),
      })),
    },
    comment: redactNullable(record.feedbackComment),
  };
}

/** One JSONL line (no trailing newline). */
export function feedbackCaseLine(record: FeedbackExportRecord): string {
  return JSON.stringify(buildFeedbackCase(record));
}

function toCaseRef(ref: { type: string; id: string; rank?: number | null }): CaseRef {
  return { type: ref.type, id: ref.id, rank: ref.rank ?? null };
}
