/**
 * Property tests (fast-check) of the feedback input rules (R-FB-2, R-FB-3, R-FB-4, R-OP-4): for
 * any batch a client can send through GraphQL, the whole-request check either passes or throws
 * the coded BadUserInputError on a field of the batch, and the per-item rules return null or an
 * item failure (code, message, next action, remediation) — they never throw. Whether a rule
 * refuses the whole request or fails one item (a too-long comment) is left open here: both are
 * documented outcomes.
 */
import fc from 'fast-check';
import { BadUserInputError } from '../../common/errors/app-error';
import { type ResultRef, ResultRefType } from '../../recall-events';
import { checkFeedbackBatch, judgmentProblem, recallProblem, refsProblem } from '../feedback.checks';
import { type FeedbackItem, FeedbackNextAction, FeedbackQuality, type ItemFailure } from '../feedback-vocabulary';

const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });
const optional = <T>(value: fc.Arbitrary<T>) => fc.option(nullable(value), { nil: undefined });
/** Texts of every kind GraphQL's String carries: empty, blank, long, NUL, lone surrogates, astral. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '   ', '\u0000', '\ud800', 'a\udc00b', '😀'),
  fc.tuple(fc.constantFrom('x', '😀', ' '), fc.integer({ min: 990, max: 1010 })).map(([unit, n]) => unit.repeat(n)),
);
const refType = fc.oneof(fc.constantFrom(...Object.values(ResultRefType)), fc.string());
const ids = fc.oneof(fc.constantFrom('ev1', 'hyp_1', 'mem_a', ''), text);
const quality = optional(fc.constantFrom(...Object.values(FeedbackQuality)));
const few = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.array(value, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(value, { minLength: 49, maxLength: 52 }) },
  );

const item: fc.Arbitrary<FeedbackItem> = fc.record(
  {
    recallEventId: fc.oneof(fc.constant('rec_01JABCDEFGHJKMNPQRSTVWXYZ0'), text),
    used: fc.boolean(),
    answerSupported: optional(fc.boolean()),
    quality,
    missingContext: optional(fc.boolean()),
    irrelevant: optional(fc.boolean()),
    feedbackComment: optional(text),
    irrelevantResultRefs: optional(few(fc.record({ type: refType, id: ids, rank: optional(fc.integer()) }))),
    hypothesisFeedback: optional(
      few(
        fc.record({
          hypothesisId: ids,
          used: optional(fc.boolean()),
          quality,
          contradicted: optional(fc.boolean()),
          feedbackComment: optional(text),
        }),
      ),
    ),
    clientFeedbackId: optional(text),
  },
  { requiredKeys: ['recallEventId', 'used'] },
);
const batch = fc.oneof(
  { weight: 6, arbitrary: fc.array(item, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(item, { minLength: 49, maxLength: 52 }) },
);
const returned: fc.Arbitrary<ResultRef[]> = fc.array(
  fc.record({ type: fc.constantFrom(...Object.values(ResultRefType)), id: ids, rank: fc.integer({ min: 1, max: 60 }) }),
  { maxLength: 6 },
);

function expectItemFailure(failure: ItemFailure | null): void {
  if (failure === null) return;
  expect(failure.code).toMatch(/^[A-Z][A-Z_]+$/);
  expect(Object.values(FeedbackNextAction)).toContain(failure.nextAction);
  expect(failure.message.length).toBeGreaterThan(0);
  expect(failure.remediation.length).toBeGreaterThan(0);
}

describe('feedback input rules, property-based', () => {
  it('R-FB-2 R-FB-3 R-FB-4 R-OP-4 any batch passes the request check or is BAD_USER_INPUT on a batch field; item rules never throw', () => {
    fc.assert(
      fc.property(batch, returned, (items, refs) => {
        try {
          checkFeedbackBatch(items);
        } catch (error) {
          expect(error).toBeInstanceOf(BadUserInputError);
          expect((error as BadUserInputError).details.field).toMatch(/^input\.recalls(\.\d+(\.[A-Za-z.\d]+)?)?$/);
          return;
        }
        expect(items.length).toBeGreaterThanOrEqual(1);
        for (const one of items) {
          expectItemFailure(judgmentProblem(one));
          expectItemFailure(refsProblem(one, refs));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('R-FB-4 R-OP-4 recallProblem answers null or an item failure for any event and generation', () => {
    fc.assert(
      fc.property(
        text,
        nullable(fc.record({ spaceId: fc.uuid(), spaceGeneration: fc.integer() })),
        fc.option(fc.integer(), { nil: undefined }),
        (recallEventId, event, generation) => {
          const failure = recallProblem(recallEventId, event, () => generation);
          expectItemFailure(failure);
          if (event !== null && generation === event.spaceGeneration) expect(failure).toBeNull();
          else expect(failure).not.toBeNull();
        },
      ),
    );
  });
});
