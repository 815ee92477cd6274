import { createHash } from 'node:crypto';
import type { ResultRef } from '../recall-events';
import type { FeedbackItem, FeedbackQuality } from './feedback-vocabulary';

/**
 * The canonical form of a feedback item (R-FB-5): what a `clientFeedbackId` stands for. Two items
 * are the same request when their canonical forms are equal, however the client spelled them:
 *
 * - fields are taken by name in a fixed order (the client's key order plays no part), and
 *   `clientFeedbackId` itself is left out: it is the key, not the content;
 * - an absent optional field is null, and an absent list is empty: GraphQL's defaults;
 * - `false` stays distinct from null (an answered "no" is not an unanswered question), and texts
 *   are compared exactly (no trimming, no Unicode normalisation), as they would be stored;
 * - `irrelevantResultRefs` and `hypothesisFeedback` are sets of judgments whose order means
 *   nothing, so they are sorted; duplicates are kept (a multiset);
 * - a ref given without a rank takes the rank the recall returned it at (as it is stored), so
 *   naming a ref with or without its right rank is the same item.
 */
export interface CanonicalFeedbackItem {
  recallEventId: string;
  used: boolean;
  answerSupported: boolean | null;
  quality: FeedbackQuality | null;
  missingContext: boolean | null;
  irrelevant: boolean | null;
  feedbackComment: string | null;
  irrelevantResultRefs: { type: string; id: string; rank: number | null }[];
  hypothesisFeedback: {
    hypothesisId: string;
    used: boolean | null;
    quality: FeedbackQuality | null;
    contradicted: boolean | null;
    feedbackComment: string | null;
  }[];
}

/** An item's judgment as it is stored and compared: everything but the recall it judges and the client's key. */
export type FeedbackJudgment = Omit<CanonicalFeedbackItem, 'recallEventId'>;

/**
 * The judgment of `item` as it is stored (R-FB-4) and, its lists sorted, compared (R-FB-5): an absent
 * optional field is null, an absent list empty, and a ref without a rank at the one its recall
 * returned it at. A ref named at another rank keeps it: compared, it is another item; stored, it
 * never is (validation refuses it first).
 */
export function judgmentOf(item: FeedbackItem, returned: readonly ResultRef[]): FeedbackJudgment {
  return {
    used: item.used,
    answerSupported: item.answerSupported ?? null,
    quality: item.quality ?? null,
    missingContext: item.missingContext ?? null,
    irrelevant: item.irrelevant ?? null,
    feedbackComment: item.feedbackComment ?? null,
    irrelevantResultRefs: (item.irrelevantResultRefs ?? []).map((ref) => ({
      type: ref.type,
      id: ref.id,
      rank: ref.rank ?? returned.find((r) => (r.type as string) === ref.type && r.id === ref.id)?.rank ?? null,
    })),
    hypothesisFeedback: (item.hypothesisFeedback ?? []).map((h) => ({
      hypothesisId: h.hypothesisId,
      used: h.used ?? null,
      quality: h.quality ?? null,
      contradicted: h.contradicted ?? null,
      feedbackComment: h.feedbackComment ?? null,
    })),
  };
}

/** Names the canonical form's version inside the digest: a changed form never matches an older digest by accident. */
const DIGEST_VERSION = 'feedback-item.v1';

/** The canonical form of `item`, its refs' ranks completed from the refs its recall returned. */
export function canonicalFeedbackItem(item: FeedbackItem, returned: readonly ResultRef[]): CanonicalFeedbackItem {
  const judgment = judgmentOf(item, returned);
  // The keys in this order: the digests of stored events were taken over it.
  return {
    recallEventId: item.recallEventId,
    ...judgment,
    irrelevantResultRefs: sorted(judgment.irrelevantResultRefs),
    hypothesisFeedback: sorted(judgment.hypothesisFeedback),
  };
}

/** SHA-256 (hex) of the versioned canonical JSON: stored with an event recorded under a client id. */
export function feedbackItemDigest(item: FeedbackItem, returned: readonly ResultRef[]): string {
  return createHash('sha256')
    .update(`${DIGEST_VERSION}\n${JSON.stringify(canonicalFeedbackItem(item, returned))}`)
    .digest('hex');
}

/** In the order of their JSON texts: a total order that needs no knowledge of the fields. */
function sorted<T>(values: T[]): T[] {
  const keyed = values.map((value) => [JSON.stringify(value), value] as const);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return keyed.map(([, value]) => value);
}
