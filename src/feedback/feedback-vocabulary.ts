import type { ResultRef } from '../recall-events';

/** The words of a feedback submission (R-FB-1..4): what an item judges, its quality, and what a failed item asks the client to do. */

export enum FeedbackQuality {
  LOW = 'LOW',
  MEDIUM = 'MEDIUM',
  HIGH = 'HIGH',
}

export enum FeedbackNextAction {
  CORRECT_AND_RESUBMIT_FROM_FAILED = 'CORRECT_AND_RESUBMIT_FROM_FAILED',
  RETRY_FROM_FAILED = 'RETRY_FROM_FAILED',
  DROP_FAILED_AND_RESUBMIT_REST = 'DROP_FAILED_AND_RESUBMIT_REST',
}

/**
 * A ref the item judges, as the client names it: a `{type, id, rank}` of the recall's (the rank
 * optional), checked against the recall's own refs by {@link refsProblem}.
 */
export type ResultRefJudgment = Omit<ResultRef, 'type' | 'rank'> & { type: string; rank?: number | null };

export interface HypothesisJudgment {
  hypothesisId: string;
  used?: boolean | null;
  quality?: FeedbackQuality | null;
  contradicted?: boolean | null;
  feedbackComment?: string | null;
}

export interface FeedbackItem {
  recallEventId: string;
  used: boolean;
  answerSupported?: boolean | null;
  quality?: FeedbackQuality | null;
  missingContext?: boolean | null;
  irrelevant?: boolean | null;
  feedbackComment?: string | null;
  irrelevantResultRefs?: readonly ResultRefJudgment[] | null;
  hypothesisFeedback?: readonly HypothesisJudgment[] | null;
  clientFeedbackId?: string | null;
}

/** Why an item was not recorded, and what the client should do about it (R-FB-2). */
export interface ItemFailure {
  code: string;
  message: string;
  nextAction: FeedbackNextAction;
  remediation: string;
}
