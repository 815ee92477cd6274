import { BadUserInputError } from '../common/errors/app-error';
import { codePointLength, isStorableText } from '../common/text/storable-text';
import { type ResultRef, ResultRefType } from '../recall-events';
import { type FeedbackItem, FeedbackNextAction, FeedbackQuality, type ItemFailure } from './feedback-vocabulary';

/** Pure rules of a feedback submission (R-FB-2..4): bounds, per-item judgments, refs, and what to do next (its words: feedback-vocabulary.ts). */

export const MAX_FEEDBACK_ITEMS = 50;
export const MAX_REFS_PER_ITEM = 50;
export const MAX_COMMENT_CHARS = 1000;
const MAX_CLIENT_FEEDBACK_ID_CHARS = 128;

/**
 * The whole-request bounds, checked before any SQL (R-FB-3, R-OP-5): over any of them the request
 * is refused and nothing is recorded. A comment's length is not among them: it is the item's own
 * validation ({@link judgmentProblem}), so the items before it are still recorded.
 */
export function checkFeedbackBatch(items: readonly FeedbackItem[], field = 'input.recalls'): void {
  if (items.length === 0 || items.length > MAX_FEEDBACK_ITEMS) {
    throw new BadUserInputError(field, `${field} must hold 1 to ${MAX_FEEDBACK_ITEMS} items; send larger batches in parts.`);
  }
  items.forEach((item, index) => {
    const path = `${field}.${index}`;
    const refs = item.irrelevantResultRefs ?? [];
    const hypotheses = item.hypothesisFeedback ?? [];
    if (refs.length > MAX_REFS_PER_ITEM) {
      throw new BadUserInputError(
        `${path}.irrelevantResultRefs`,
        `${path}.irrelevantResultRefs may hold at most ${MAX_REFS_PER_ITEM} refs.`,
      );
    }
    if (hypotheses.length > MAX_REFS_PER_ITEM) {
      throw new BadUserInputError(
        `${path}.hypothesisFeedback`,
        `${path}.hypothesisFeedback may hold at most ${MAX_REFS_PER_ITEM} judgments.`,
      );
    }
    const clientId = item.clientFeedbackId;
    if (
      clientId !== null &&
      clientId !== undefined &&
      (clientId.length === 0 || codePointLength(clientId) > MAX_CLIENT_FEEDBACK_ID_CHARS)
    ) {
      throw new BadUserInputError(
        `${path}.clientFeedbackId`,
        `${path}.clientFeedbackId must be 1 to ${MAX_CLIENT_FEEDBACK_ID_CHARS} characters.`,
      );
    }
    const texts: [string, string | null | undefined][] = [
      ['recallEventId', item.recallEventId],
      ['feedbackComment', item.feedbackComment],
      ['clientFeedbackId', clientId],
      ...refs.map((ref, i): [string, string] => [`irrelevantResultRefs.${i}.id`, ref.id]),
      ...hypotheses.flatMap((h, i): [string, string | null | undefined][] => [
        [`hypothesisFeedback.${i}.hypothesisId`, h.hypothesisId],
        [`hypothesisFeedback.${i}.feedbackComment`, h.feedbackComment],
      ]),
    ];
    for (const [name, text] of texts) {
      if (text !== null && text !== undefined && !isStorableText(text)) {
        throw new BadUserInputError(
          `${path}.${name}`,
          `${path}.${name} contains a NUL character or an unpaired surrogate, which cannot be stored; remove it.`,
        );
      }
    }
  });
}

/** A comment over the limit, as the item's failure: refused, never cut (R-FB-3). Null when it fits. */
function commentLengthProblem(comment: string | null | undefined, field: string): ItemFailure | null {
  const length = comment === null || comment === undefined ? 0 : codePointLength(comment);
  if (length <= MAX_COMMENT_CHARS) return null;
  return correct(
    'COMMENT_TOO_LONG',
    `${field} is ${length} characters; the limit is ${MAX_COMMENT_CHARS}.`,
    `Shorten ${field} to at most ${MAX_COMMENT_CHARS} characters (comments are never cut), then resubmit from this item.`,
  );
}

function hasText(comment: string | null | undefined): boolean {
  return comment !== null && comment !== undefined && comment.trim().length > 0;
}

/**
 * Comments are at most 1000 characters, and a comment is required for a LOW quality, missing
 * context, irrelevant results, or a hypothesis judged contradicted or LOW (R-FB-3). Null when the
 * item's judgments are complete.
 */
export function judgmentProblem(item: FeedbackItem): ItemFailure | null {
  const tooLong =
    commentLengthProblem(item.feedbackComment, 'feedbackComment') ??
    (item.hypothesisFeedback ?? []).reduce<ItemFailure | null>(
      (found, h, index) => found ?? commentLengthProblem(h.feedbackComment, `hypothesisFeedback.${index}.feedbackComment`),
      null,
    );
  if (tooLong !== null) return tooLong;
  const reasons: string[] = [];
  if (item.quality === FeedbackQuality.LOW) reasons.push('quality is LOW');
  if (item.missingContext === true) reasons.push('missingContext is true');
  if (item.irrelevant === true) reasons.push('irrelevant is true');
  if (reasons.length > 0 && !hasText(item.feedbackComment)) {
    return correct(
      'COMMENT_REQUIRED',
      `feedbackComment is required because ${reasons.join(' and ')}.`,
      'Add a feedbackComment describing the retrieval failure (without private user content), then resubmit from this item.',
    );
  }
  for (const [index, hypothesis] of (item.hypothesisFeedback ?? []).entries()) {
    const judged = hypothesis.contradicted === true ? 'contradicted' : hypothesis.quality === FeedbackQuality.LOW ? 'of LOW quality' : null;
    if (judged !== null && !hasText(hypothesis.feedbackComment)) {
      return correct(
        'COMMENT_REQUIRED',
        `hypothesisFeedback.${index}.feedbackComment is required because the hypothesis is judged ${judged}.`,
        `Add a feedbackComment to hypothesisFeedback.${index} saying why, then resubmit from this item.`,
      );
    }
  }
  return null;
}

/**
 * Every irrelevant ref (type, id, and rank when given) and every hypothesis must be among the
 * refs the recall event returned (R-FB-4).
 */
export function refsProblem(item: FeedbackItem, returned: readonly ResultRef[]): ItemFailure | null {
  for (const [index, ref] of (item.irrelevantResultRefs ?? []).entries()) {
    const match = returned.find((r) => (r.type as string) === ref.type && r.id === ref.id);
    if (!match || (ref.rank !== null && ref.rank !== undefined && ref.rank !== match.rank)) {
      const got = `${ref.type} ${ref.id}${ref.rank !== null && ref.rank !== undefined ? ` at rank ${ref.rank}` : ''}`;
      const hint = match ? `it was returned at rank ${match.rank}` : 'the recall did not return it';
      return correct(
        'REF_NOT_IN_RECALL',
        `irrelevantResultRefs.${index} (${got}) is not a result of recall ${item.recallEventId}: ${hint}.`,
        'Name only refs the recall returned, with the rank it returned them at (or no rank), then resubmit from this item.',
      );
    }
  }
  for (const [index, hypothesis] of (item.hypothesisFeedback ?? []).entries()) {
    if (!returned.some((r) => r.type === ResultRefType.HYPOTHESIS && r.id === hypothesis.hypothesisId)) {
      return correct(
        'HYPOTHESIS_NOT_IN_RECALL',
        `hypothesisFeedback.${index} names hypothesis ${hypothesis.hypothesisId}, which recall ${item.recallEventId} did not return.`,
        'Judge only hypotheses the recall returned, then resubmit from this item.',
      );
    }
  }
  return null;
}

/** What the recall event allows: it must exist for the team, and its space be allowed at the stored generation. */
export function recallProblem(
  recallEventId: string,
  event: { spaceId: string; spaceGeneration: number } | null,
  currentGeneration: (spaceId: string) => number | undefined,
): ItemFailure | null {
  if (event === null) {
    return drop(
      'RECALL_NOT_FOUND',
      `Recall event ${recallEventId} was not found.`,
      'Drop this item (the recall is unknown or was deleted) and resubmit the items after it.',
    );
  }
  const generation = currentGeneration(event.spaceId);
  if (generation !== event.spaceGeneration) {
    const why =
      generation === undefined
        ? 'its space is sealed, retired or no longer yours'
        : `its space moved on to generation ${generation} (the recall was at ${event.spaceGeneration})`;
    return drop(
      'RECALL_STALE',
      `Recall event ${recallEventId} can no longer take feedback: ${why}.`,
      'Drop this item and resubmit the items after it.',
    );
  }
  return null;
}

/**
 * The item's `clientFeedbackId` is already recorded for the actor with different content (R-FB-5):
 * the key must not hide a changed request, and the recorded event is not changed.
 */
export function conflictProblem(clientFeedbackId: string, existingId: string): ItemFailure {
  return drop(
    'CONFLICT',
    `clientFeedbackId ${clientFeedbackId} is already recorded (as ${existingId}) for a different item.`,
    'Drop this item (the recorded one stands) or send the changed judgment under a new clientFeedbackId, and resubmit the items after it.',
  );
}

/**
 * A transient database fault before or while recording the item (R-FB-2): it may be retried as it
 * is. `outcomeKnown` is false when the connection was lost under the write, which may have
 * committed: a retry is then safe only with a clientFeedbackId.
 */
export function transientProblem(outcomeKnown = true): ItemFailure {
  return {
    code: 'DATABASE_UNAVAILABLE',
    message: outcomeKnown
      ? 'The item could not be recorded because of a transient database fault; nothing of it was stored.'
      : 'The connection to the database was lost while the item was being recorded; it may or may not have been stored.',
    nextAction: FeedbackNextAction.RETRY_FROM_FAILED,
    remediation: outcomeKnown
      ? 'Retry from this item, unchanged, after a short wait; the items before it are recorded.'
      : 'Retry from this item, unchanged, after a short wait; with a clientFeedbackId the retry records it at most once.',
  };
}

function correct(code: string, message: string, remediation: string): ItemFailure {
  return { code, message, nextAction: FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED, remediation };
}

function drop(code: string, message: string, remediation: string): ItemFailure {
  return { code, message, nextAction: FeedbackNextAction.DROP_FAILED_AND_RESUBMIT_REST, remediation };
}
