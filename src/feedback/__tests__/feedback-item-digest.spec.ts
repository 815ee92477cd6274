/**
 * The canonical form of a feedback item and its digest (R-FB-5): what counts as the same item
 * under one clientFeedbackId, and what counts as a changed one.
 */
import fc from 'fast-check';
import { type ResultRef, ResultRefType } from '../../recall-events';
import { canonicalFeedbackItem, feedbackItemDigest } from '../feedback-item-digest';
import { type FeedbackItem, FeedbackQuality } from '../feedback-vocabulary';

const RECALL = 'rec_01JABCDEFGHJKMNPQRSTVWXYZ0';
const returned: ResultRef[] = [
  { type: ResultRefType.RELATIONSHIP, id: 'r_ok', rank: 1 },
  { type: ResultRefType.EVIDENCE, id: 'ev_button', rank: 2 },
  { type: ResultRefType.HYPOTHESIS, id: 'hyp_a', rank: 3 },
  { type: ResultRefType.HYPOTHESIS, id: 'hyp_b', rank: 4 },
];

/** A full item: every field answered, two refs, two hypotheses. */
const full = (): FeedbackItem => ({
  recallEventId: RECALL,
  used: true,
  answerSupported: false,
  quality: FeedbackQuality.LOW,
  missingContext: true,
  irrelevant: true,
  feedbackComment: 'Fetched styles instead of the click handler.',
  irrelevantResultRefs: [
    { type: 'RELATIONSHIP', id: 'r_ok', rank: 1 },
    { type: 'EVIDENCE', id: 'ev_button', rank: 2 },
  ],
  hypothesisFeedback: [
    { hypothesisId: 'hyp_a', used: true, quality: FeedbackQuality.HIGH, contradicted: false, feedbackComment: null },
    { hypothesisId: 'hyp_b', contradicted: true, feedbackComment: 'The code says otherwise.' },
  ],
  clientFeedbackId: 'session-7/item-0',
});

const digest = (item: FeedbackItem) => feedbackItemDigest(item, returned);

describe('feedback item canonical form', () => {
  it('R-FB-5 the digest is a SHA-256 hex, the same for the same item', () => {
    expect(digest(full())).toMatch(/^[0-9a-f]{64}$/);
    expect(digest(full())).toBe(digest(full()));
  });

  it("R-FB-5 the client's key order plays no part", () => {
    const item = full();
    const reversed = Object.fromEntries(Object.entries(item).reverse()) as unknown as FeedbackItem;
    const refsReversed = {
      ...reversed,
      irrelevantResultRefs: item.irrelevantResultRefs!.map((r) => Object.fromEntries(Object.entries(r).reverse()) as typeof r),
    };
    expect(digest(refsReversed)).toBe(digest(item));
  });

  it('R-FB-5 absent optional fields are null and absent lists are empty (GraphQL defaults)', () => {
    const bare: FeedbackItem = { recallEventId: RECALL, used: true };
    const spelled: FeedbackItem = {
      recallEventId: RECALL,
      used: true,
      answerSupported: null,
      quality: null,
      missingContext: null,
      irrelevant: null,
      feedbackComment: null,
      irrelevantResultRefs: [],
      hypothesisFeedback: null,
    };
    expect(digest(spelled)).toBe(digest(bare));
    expect(digest({ ...bare, irrelevantResultRefs: null, hypothesisFeedback: [] })).toBe(digest(bare));
    expect(digest({ ...bare, hypothesisFeedback: [{ hypothesisId: 'hyp_a' }] })).toBe(
      digest({
        ...bare,
        hypothesisFeedback: [{ hypothesisId: 'hyp_a', used: null, quality: null, contradicted: null, feedbackComment: null }],
      }),
    );
  });

  it('R-FB-5 the order of irrelevant refs and of hypothesis judgments carries no meaning', () => {
    const item = full();
    const shuffled = {
      ...item,
      irrelevantResultRefs: [...item.irrelevantResultRefs!].reverse(),
      hypothesisFeedback: [...item.hypothesisFeedback!].reverse(),
    };
    expect(digest(shuffled)).toBe(digest(item));
    expect(canonicalFeedbackItem(shuffled, returned)).toEqual(canonicalFeedbackItem(item, returned));
  });

  it('R-FB-5 a ref without a rank takes the rank the recall returned it at', () => {
    const item = full();
    const unranked = { ...item, irrelevantResultRefs: item.irrelevantResultRefs!.map(({ type, id }) => ({ type, id })) };
    const nullRanked = { ...item, irrelevantResultRefs: item.irrelevantResultRefs!.map(({ type, id }) => ({ type, id, rank: null })) };
    expect(digest(unranked)).toBe(digest(item));
    expect(digest(nullRanked)).toBe(digest(item));
    // A wrong rank is another item (and an invalid one).
    expect(digest({ ...item, irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 1 }] })).not.toBe(
      digest({ ...item, irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 2 }] }),
    );
    // A ref the recall did not return keeps no rank.
    expect(
      canonicalFeedbackItem({ recallEventId: RECALL, used: true, irrelevantResultRefs: [{ type: 'ENTITY', id: 'x' }] }, returned)
        .irrelevantResultRefs,
    ).toEqual([{ type: 'ENTITY', id: 'x', rank: null }]);
  });

  it('R-FB-5 the clientFeedbackId itself is the key, not the content', () => {
    expect(digest({ ...full(), clientFeedbackId: 'another-key' })).toBe(digest(full()));
    expect(digest({ ...full(), clientFeedbackId: null })).toBe(digest(full()));
  });

  const changes: [string, (item: FeedbackItem) => FeedbackItem][] = [
    ['another recall', (i) => ({ ...i, recallEventId: 'rec_01JZZZZZZZZZZZZZZZZZZZZZZZ' })],
    ['used flipped', (i) => ({ ...i, used: !i.used })],
    ['answerSupported false → null', (i) => ({ ...i, answerSupported: null })],
    ['answerSupported false → true', (i) => ({ ...i, answerSupported: true })],
    ['quality', (i) => ({ ...i, quality: FeedbackQuality.MEDIUM })],
    ['missingContext true → false', (i) => ({ ...i, missingContext: false })],
    ['irrelevant true → null', (i) => ({ ...i, irrelevant: null })],
    ['the comment edited', (i) => ({ ...i, feedbackComment: `${i.feedbackComment} ` })],
    ['the comment dropped', (i) => ({ ...i, feedbackComment: null })],
    ['an empty comment for none', (i) => ({ ...i, feedbackComment: '' })],
    ['a ref dropped', (i) => ({ ...i, irrelevantResultRefs: i.irrelevantResultRefs!.slice(1) })],
    ['a ref repeated', (i) => ({ ...i, irrelevantResultRefs: [...i.irrelevantResultRefs!, i.irrelevantResultRefs![0]] })],
    ['a ref retyped', (i) => ({ ...i, irrelevantResultRefs: [{ type: 'ENTITY', id: 'r_ok', rank: 1 }, i.irrelevantResultRefs![1]] })],
    ['a hypothesis dropped', (i) => ({ ...i, hypothesisFeedback: i.hypothesisFeedback!.slice(0, 1) })],
    [
      "a hypothesis's judgment changed",
      (i) => ({ ...i, hypothesisFeedback: [i.hypothesisFeedback![0], { ...i.hypothesisFeedback![1], contradicted: false }] }),
    ],
    [
      "a hypothesis's comment changed",
      (i) => ({ ...i, hypothesisFeedback: [i.hypothesisFeedback![0], { ...i.hypothesisFeedback![1], feedbackComment: 'Other.' }] }),
    ],
  ];

  it.each(changes)('R-FB-5 %s is a different item', (_, change) => {
    expect(digest(change(full()))).not.toBe(digest(full()));
  });

  it('R-FB-5 property: any reordering of refs and hypotheses keeps the digest; canonicalising is idempotent', () => {
    const ref = fc.record({
      type: fc.constantFrom('RELATIONSHIP', 'EVIDENCE', 'ENTITY'),
      id: fc.string({ maxLength: 6 }),
      rank: fc.option(fc.integer({ min: 1, max: 9 })),
    });
    const hypothesis = fc.record({
      hypothesisId: fc.string({ maxLength: 6 }),
      used: fc.option(fc.boolean()),
      quality: fc.option(fc.constantFrom(...Object.values(FeedbackQuality))),
      contradicted: fc.option(fc.boolean()),
      feedbackComment: fc.option(fc.string({ maxLength: 10 })),
    });
    fc.assert(
      fc.property(
        fc.array(ref, { maxLength: 6 }),
        fc.array(hypothesis, { maxLength: 6 }),
        fc.option(fc.string({ maxLength: 10 })),
        (refs, hypotheses, comment) => {
          const item: FeedbackItem = {
            recallEventId: RECALL,
            used: true,
            feedbackComment: comment,
            irrelevantResultRefs: refs,
            hypothesisFeedback: hypotheses,
          };
          const reordered = { ...item, irrelevantResultRefs: [...refs].reverse(), hypothesisFeedback: [...hypotheses].reverse() };
          expect(digest(reordered)).toBe(digest(item));
          const canonical = canonicalFeedbackItem(item, returned);
          expect(canonicalFeedbackItem(canonical as FeedbackItem, returned)).toEqual(canonical);
        },
      ),
    );
  });
});
