/**
 * The pure rules of a feedback submission: whole-request bounds (R-FB-3), per-item judgments
 * (R-FB-3), refs bound to the recall event (R-FB-4), what a stale or unknown recall means
 * (R-FB-4) and the next action of each failure (R-FB-2).
 */
import { AppError, BadUserInputError, ErrorCode } from '../../common/errors/app-error';
import { type ResultRef, ResultRefType } from '../../recall-events';
import {
  checkFeedbackBatch,
  conflictProblem,
  judgmentProblem,
  MAX_COMMENT_CHARS,
  MAX_FEEDBACK_ITEMS,
  MAX_REFS_PER_ITEM,
  recallProblem,
  refsProblem,
  transientProblem,
} from '../feedback.checks';
import { type FeedbackItem, FeedbackNextAction, FeedbackQuality, type ItemFailure } from '../feedback-vocabulary';

const RECALL = 'rec_01JABCDEFGHJKMNPQRSTVWXYZ0';
const item = (overrides: Partial<FeedbackItem> = {}): FeedbackItem => ({ recallEventId: RECALL, used: true, ...overrides });
const items = (n: number, overrides: Partial<FeedbackItem> = {}) => Array.from({ length: n }, () => item(overrides));
const refs = (n: number) => Array.from({ length: n }, (_, i) => ({ type: ResultRefType.EVIDENCE, id: `ev${i}`, rank: i + 1 }));
const hypotheses = (n: number) => Array.from({ length: n }, (_, i) => ({ hypothesisId: `hyp_${i}` }));

/** The BadUserInputError `check` throws, or a failure when it throws nothing. */
function rejection(check: () => void): BadUserInputError {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return error as BadUserInputError;
  }
  throw new Error('expected a BadUserInputError, nothing was thrown');
}

/** A remediation is a sentence: starts with a capital, ends with a full stop, says something. */
function expectSentence(text: string) {
  expect(text.trim().length).toBeGreaterThan(10);
  expect(text).toMatch(/^[A-Z].*\.$/s);
}

function expectFailure(failure: ItemFailure | null, code: string, nextAction: FeedbackNextAction): ItemFailure {
  expect(failure).not.toBeNull();
  expect(failure).toMatchObject({ code, nextAction });
  expect(failure!.message.length).toBeGreaterThan(0);
  expectSentence(failure!.remediation);
  return failure!;
}

describe('feedback.checks', () => {
  describe('checkFeedbackBatch', () => {
    it('R-FB-3 accepts 1 and 50 items; refuses 0 and 51 naming input.recalls', () => {
      expect(MAX_FEEDBACK_ITEMS).toBe(50);
      expect(() => checkFeedbackBatch(items(1))).not.toThrow();
      expect(() => checkFeedbackBatch(items(50))).not.toThrow();
      for (const n of [0, 51]) {
        const error = rejection(() => checkFeedbackBatch(items(n)));
        expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
        expect(error.details).toEqual({ field: 'input.recalls' });
        expect(error.message).toContain('50');
      }
    });

    it("R-FB-3 accepts 50 irrelevant refs and 50 hypothesis judgments; 51 of either names the item's field", () => {
      expect(MAX_REFS_PER_ITEM).toBe(50);
      expect(() => checkFeedbackBatch([item({ irrelevantResultRefs: refs(50), hypothesisFeedback: hypotheses(50) })])).not.toThrow();

      const tooManyRefs = [item(), item(), item({ irrelevantResultRefs: refs(51) })];
      expect(rejection(() => checkFeedbackBatch(tooManyRefs)).details).toEqual({ field: 'input.recalls.2.irrelevantResultRefs' });

      const tooManyHypotheses = [item(), item({ hypothesisFeedback: hypotheses(51) })];
      expect(rejection(() => checkFeedbackBatch(tooManyHypotheses)).details).toEqual({ field: 'input.recalls.1.hypothesisFeedback' });
    });

    it('R-FB-3 a comment of any length is not a whole-request bound: the item decides (judgmentProblem)', () => {
      expect(MAX_COMMENT_CHARS).toBe(1000);
      const long = 'c'.repeat(1001);
      expect(() =>
        checkFeedbackBatch([
          item(),
          item({ feedbackComment: long, hypothesisFeedback: [{ hypothesisId: 'h', contradicted: true, feedbackComment: long }] }),
        ]),
      ).not.toThrow();
    });

    it('R-FB-5 clientFeedbackId is 1 to 128 characters', () => {
      expect(() => checkFeedbackBatch([item({ clientFeedbackId: 'k'.repeat(128) })])).not.toThrow();
      expect(() => checkFeedbackBatch([item({ clientFeedbackId: null })])).not.toThrow();
      for (const id of ['', 'k'.repeat(129)]) {
        expect(rejection(() => checkFeedbackBatch([item(), item({ clientFeedbackId: id })])).details).toEqual({
          field: 'input.recalls.1.clientFeedbackId',
        });
      }
    });

    it('R-FB-3 the field prefix can be chosen (another transport names its own path)', () => {
      expect(rejection(() => checkFeedbackBatch(items(51), 'recalls')).details).toEqual({ field: 'recalls' });
    });
  });

  describe('judgmentProblem', () => {
    const needsComment: [string, Partial<FeedbackItem>][] = [
      ['quality LOW', { quality: FeedbackQuality.LOW }],
      ['missingContext', { missingContext: true }],
      ['irrelevant', { irrelevant: true }],
      ['a contradicted hypothesis', { hypothesisFeedback: [{ hypothesisId: 'h1', contradicted: true }] }],
      ['a LOW hypothesis', { hypothesisFeedback: [{ hypothesisId: 'h1', quality: FeedbackQuality.LOW }] }],
    ];

    it.each(needsComment)('R-FB-3 %s needs a comment: COMMENT_REQUIRED, CORRECT_AND_RESUBMIT_FROM_FAILED', (_, overrides) => {
      expectFailure(judgmentProblem(item(overrides)), 'COMMENT_REQUIRED', FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED);
    });

    it.each(needsComment)('R-FB-3 %s with a white-space-only comment still needs one', (_, overrides) => {
      const blank = ' \t\n ';
      const withBlank: Partial<FeedbackItem> = overrides.hypothesisFeedback
        ? { hypothesisFeedback: overrides.hypothesisFeedback.map((h) => ({ ...h, feedbackComment: blank })) }
        : { ...overrides, feedbackComment: blank };
      expectFailure(judgmentProblem(item(withBlank)), 'COMMENT_REQUIRED', FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED);
      expectFailure(
        judgmentProblem(item({ ...withBlank, feedbackComment: '' })),
        'COMMENT_REQUIRED',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
    });

    it('R-FB-3 the message names why the comment is needed', () => {
      expect(judgmentProblem(item({ quality: FeedbackQuality.LOW, irrelevant: true }))!.message).toMatch(/LOW.*irrelevant/s);
      expect(
        judgmentProblem(item({ hypothesisFeedback: [{ hypothesisId: 'ok' }, { hypothesisId: 'h', contradicted: true }] }))!.message,
      ).toContain('hypothesisFeedback.1');
    });

    it('R-FB-3 each judgment with its comment is complete', () => {
      expect(
        judgmentProblem(item({ quality: FeedbackQuality.LOW, missingContext: true, irrelevant: true, feedbackComment: 'Stale results.' })),
      ).toBeNull();
      expect(
        judgmentProblem(
          item({
            hypothesisFeedback: [
              { hypothesisId: 'h1', contradicted: true, feedbackComment: 'Source was stale.' },
              { hypothesisId: 'h2', quality: FeedbackQuality.LOW, feedbackComment: 'Weak.' },
            ],
          }),
        ),
      ).toBeNull();
    });

    it("R-FB-3 the item's comment does not stand in for a hypothesis's", () => {
      const problem = judgmentProblem(
        item({ feedbackComment: 'Overall fine.', hypothesisFeedback: [{ hypothesisId: 'h1', contradicted: true }] }),
      );
      expectFailure(problem, 'COMMENT_REQUIRED', FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED);
    });

    it('R-FB-3 HIGH, MEDIUM, no quality, false flags and an uncontradicted hypothesis need no comment', () => {
      expect(judgmentProblem(item({ quality: FeedbackQuality.HIGH }))).toBeNull();
      expect(judgmentProblem(item({ quality: FeedbackQuality.MEDIUM }))).toBeNull();
      expect(judgmentProblem(item())).toBeNull();
      expect(judgmentProblem(item({ used: false, answerSupported: false, missingContext: false, irrelevant: false }))).toBeNull();
      expect(judgmentProblem(item({ missingContext: null, irrelevant: null, quality: null }))).toBeNull();
      expect(
        judgmentProblem(
          item({ hypothesisFeedback: [{ hypothesisId: 'h1', contradicted: false, quality: FeedbackQuality.HIGH, used: true }] }),
        ),
      ).toBeNull();
    });
  });

  describe('judgmentProblem: comment length', () => {
    it('R-FB-3 a 1000-character comment is accepted; 1001 is COMMENT_TOO_LONG naming the field, never cut', () => {
      const exact = 'c'.repeat(1000);
      const fits = item({ quality: FeedbackQuality.LOW, feedbackComment: exact });
      expect(judgmentProblem(fits)).toBeNull();
      expect(fits.feedbackComment).toBe(exact);

      const long = 'c'.repeat(1001);
      const tooLong = item({ feedbackComment: long });
      const failure = expectFailure(judgmentProblem(tooLong), 'COMMENT_TOO_LONG', FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED);
      expect(failure.message).toContain('feedbackComment');
      expect(failure.message).toContain('1001');
      expect(failure.remediation).toContain('1000');
      expect(failure.remediation).toMatch(/shorten/i);
      // The input is left as it was: refused, not trimmed to fit.
      expect(tooLong.feedbackComment).toBe(long);
    });

    it('R-FB-3 characters are counted as code points, as the column counts them', () => {
      expect(judgmentProblem(item({ feedbackComment: '\u{1F600}'.repeat(1000) }))).toBeNull();
      expect(judgmentProblem(item({ feedbackComment: '\u{1F600}'.repeat(1001) }))?.code).toBe('COMMENT_TOO_LONG');
    });

    it('R-FB-3 a hypothesis comment is bounded the same way, naming the hypothesis', () => {
      expect(
        judgmentProblem(item({ hypothesisFeedback: [{ hypothesisId: 'h', contradicted: true, feedbackComment: 'h'.repeat(1000) }] })),
      ).toBeNull();
      const failure = expectFailure(
        judgmentProblem(
          item({
            hypothesisFeedback: [{ hypothesisId: 'h0' }, { hypothesisId: 'h1', contradicted: true, feedbackComment: 'h'.repeat(1001) }],
          }),
        ),
        'COMMENT_TOO_LONG',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
      expect(failure.message).toContain('hypothesisFeedback.1.feedbackComment');
    });

    it('R-FB-3 a too-long comment is reported before a missing one', () => {
      const failure = judgmentProblem(
        item({ feedbackComment: 'c'.repeat(1001), hypothesisFeedback: [{ hypothesisId: 'h', contradicted: true }] }),
      );
      expect(failure?.code).toBe('COMMENT_TOO_LONG');
    });
  });

  describe('refsProblem', () => {
    const returned: ResultRef[] = [
      { type: ResultRefType.RELATIONSHIP, id: 'r_stale_ui', rank: 1 },
      { type: ResultRefType.EVIDENCE, id: 'ev_7', rank: 2 },
      { type: ResultRefType.HYPOTHESIS, id: 'hyp_1', rank: 3 },
    ];

    it('R-FB-4 a returned ref is accepted with its rank or without one', () => {
      expect(refsProblem(item({ irrelevantResultRefs: [{ type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 }] }), returned)).toBeNull();
      expect(refsProblem(item({ irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_7' }] }), returned)).toBeNull();
      expect(refsProblem(item({ irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_7', rank: null }] }), returned)).toBeNull();
      expect(refsProblem(item({ irrelevantResultRefs: [], hypothesisFeedback: [] }), returned)).toBeNull();
      expect(refsProblem(item(), [])).toBeNull();
    });

    it('R-FB-4 an id the recall did not return is REF_NOT_IN_RECALL', () => {
      const failure = expectFailure(
        refsProblem(
          item({
            irrelevantResultRefs: [
              { type: 'RELATIONSHIP', id: 'r_stale_ui', rank: 1 },
              { type: 'EVIDENCE', id: 'ev_other', rank: 2 },
            ],
          }),
          returned,
        ),
        'REF_NOT_IN_RECALL',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
      expect(failure.message).toContain('irrelevantResultRefs.1');
    });

    it('R-FB-4 the right id under another type is REF_NOT_IN_RECALL', () => {
      expectFailure(
        refsProblem(item({ irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'r_stale_ui', rank: 1 }] }), returned),
        'REF_NOT_IN_RECALL',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
    });

    it('R-FB-4 a returned ref at the wrong rank is REF_NOT_IN_RECALL, and the message gives the right rank', () => {
      const failure = expectFailure(
        refsProblem(item({ irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_7', rank: 1 }] }), returned),
        'REF_NOT_IN_RECALL',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
      expect(failure.message).toContain('rank 2');
    });

    it('R-FB-4 a hypothesis must be a returned HYPOTHESIS ref', () => {
      expect(refsProblem(item({ hypothesisFeedback: [{ hypothesisId: 'hyp_1' }] }), returned)).toBeNull();
      expectFailure(
        refsProblem(item({ hypothesisFeedback: [{ hypothesisId: 'hyp_2' }] }), returned),
        'HYPOTHESIS_NOT_IN_RECALL',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
      // Returned, but not as a hypothesis.
      expectFailure(
        refsProblem(item({ hypothesisFeedback: [{ hypothesisId: 'ev_7' }] }), returned),
        'HYPOTHESIS_NOT_IN_RECALL',
        FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
      );
      const failure = refsProblem(item({ hypothesisFeedback: [{ hypothesisId: 'hyp_1' }, { hypothesisId: 'hyp_9' }] }), returned);
      expect(failure?.message).toContain('hypothesisFeedback.1');
      expect(failure?.message).toContain('hyp_9');
    });
  });

  describe('recallProblem', () => {
    const SPACE = '4b7c3b1e-6d2a-4f57-9a51-2f1d3b0f7c11';
    const event = { spaceId: SPACE, spaceGeneration: 2 };

    it("R-FB-4 an unknown recall (or another team's, which reads as unknown) is RECALL_NOT_FOUND: drop it", () => {
      const failure = expectFailure(
        recallProblem(RECALL, null, () => 2),
        'RECALL_NOT_FOUND',
        FeedbackNextAction.DROP_FAILED_AND_RESUBMIT_REST,
      );
      expect(failure.message).toContain(RECALL);
    });

    it('R-FB-4 a recall whose space is at another generation is RECALL_STALE: drop it', () => {
      for (const current of [3, 1]) {
        expectFailure(
          recallProblem(RECALL, event, (id) => (id === SPACE ? current : undefined)),
          'RECALL_STALE',
          FeedbackNextAction.DROP_FAILED_AND_RESUBMIT_REST,
        );
      }
    });

    it('R-FB-4 a recall whose space is not in the allowed set (sealed, retired, not a member) is RECALL_STALE: drop it', () => {
      expectFailure(
        recallProblem(RECALL, event, () => undefined),
        'RECALL_STALE',
        FeedbackNextAction.DROP_FAILED_AND_RESUBMIT_REST,
      );
    });

    it('R-FB-4 a recall in an allowed space at the same generation is fine', () => {
      const asked: string[] = [];
      expect(
        recallProblem(RECALL, event, (id) => {
          asked.push(id);
          return id === SPACE ? 2 : undefined;
        }),
      ).toBeNull();
      expect(asked).toEqual([SPACE]);
    });
  });

  describe('transientProblem', () => {
    it('R-FB-2 a database fault is DATABASE_UNAVAILABLE: retry from the failed item', () => {
      const failure = expectFailure(transientProblem(), 'DATABASE_UNAVAILABLE', FeedbackNextAction.RETRY_FROM_FAILED);
      expect(failure.remediation).toMatch(/retry/i);
      expect(failure.message).toMatch(/nothing of it was stored/);
    });

    it('R-FB-2 a connection lost under the write says the item may have been stored, and how to retry safely', () => {
      const failure = expectFailure(transientProblem(false), 'DATABASE_UNAVAILABLE', FeedbackNextAction.RETRY_FROM_FAILED);
      expect(failure.message).toMatch(/may or may not/);
      expect(failure.remediation).toContain('clientFeedbackId');
    });
  });

  describe('conflictProblem', () => {
    it('R-FB-5 a key recorded with other content is CONFLICT: drop the item and resubmit the rest', () => {
      const failure = expectFailure(
        conflictProblem('session-1/item-0', 'fb_01JABC'),
        'CONFLICT',
        FeedbackNextAction.DROP_FAILED_AND_RESUBMIT_REST,
      );
      expect(failure.message).toContain('session-1/item-0');
      expect(failure.message).toContain('fb_01JABC');
      expect(failure.remediation).toContain('clientFeedbackId');
    });
  });

  it('R-FB-2 every failure of the rules carries a next action from the three and a remediation sentence', () => {
    const failures: ItemFailure[] = [
      judgmentProblem(item({ quality: FeedbackQuality.LOW }))!,
      judgmentProblem(item({ hypothesisFeedback: [{ hypothesisId: 'h', contradicted: true }] }))!,
      refsProblem(item({ irrelevantResultRefs: [{ type: 'ENTITY', id: 'x' }] }), [])!,
      refsProblem(item({ hypothesisFeedback: [{ hypothesisId: 'h' }] }), [])!,
      recallProblem(RECALL, null, () => 1)!,
      recallProblem(RECALL, { spaceId: 's', spaceGeneration: 1 }, () => undefined)!,
      judgmentProblem(item({ feedbackComment: 'c'.repeat(1001) }))!,
      transientProblem(),
      transientProblem(false),
      conflictProblem('k', 'fb_x'),
    ];
    for (const failure of failures) {
      expect(Object.values(FeedbackNextAction)).toContain(failure.nextAction);
      expectSentence(failure.remediation);
      expect(failure.remediation).not.toBe(failure.message);
    }
    // Bounds are request errors, not item failures.
    expect(rejection(() => checkFeedbackBatch(items(51)))).toBeInstanceOf(AppError);
  });
});
