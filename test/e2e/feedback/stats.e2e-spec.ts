/**
 * Recall feedback through the API: feedbackMetrics against a hand-computed fixture, and the
 * Prometheus counters (R-FB-9).
 */
import request from 'supertest';
import { METRICS, type FeedbackInput, type MetricsRow } from '../../support/feedback-api';
import {
  createFeedbackApp,
  FEEDBACK_FLAG,
  fine,
  newTeam,
  recallEvent,
  recallEvents,
  submit,
  submitOk,
} from '../../support/feedback-fixtures';
import { ok } from '../../support/graphql';
import { SEAL, setFlag } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

describe('Recall feedback (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('feedback stats (feedbackMetrics)', () => {
    it('R-FB-9 rates, average quality and event counts match a hand-computed fixture for every groupBy; hidden events are not counted', async () => {
      const { admin, member, spaces } = await newTeam(t, 2);
      // #  contract fusion  freshness       used  supported quality missing irrelevant
      // 1  m.v1     rrf     synchronous     T     T         HIGH    -       -
      // 2  m.v1     rrf     vector_pending  T     F         LOW     T       T
      // 3  m.v1     single  synchronous     F     null      null    F       F
      // 4  m.v2     rrf     vector_pending  T     T         MEDIUM  F       T
      // 5  m.v2     single  synchronous     F     F         LOW     T       F
      // 6  m.v2     single  (none)          T     T         HIGH    null    null
      const fixture: [string, string, string | null, Omit<FeedbackInput, 'recallEventId'>][] = [
        ['m.v1', 'rrf', 'synchronous', { used: true, answerSupported: true, quality: 'HIGH' }],
        [
          'm.v1',
          'rrf',
          'vector_pending',
          { used: true, answerSupported: false, quality: 'LOW', missingContext: true, irrelevant: true, feedbackComment: 'Stale.' },
        ],
        ['m.v1', 'single', 'synchronous', { used: false, answerSupported: null, quality: null, missingContext: false, irrelevant: false }],
        [
          'm.v2',
          'rrf',
          'vector_pending',
          {
            used: true,
            answerSupported: true,
            quality: 'MEDIUM',
            missingContext: false,
            irrelevant: true,
            feedbackComment: 'One bad hit.',
          },
        ],
        [
          'm.v2',
          'single',
          'synchronous',
          {
            used: false,
            answerSupported: false,
            quality: 'LOW',
            missingContext: true,
            irrelevant: false,
            feedbackComment: 'Nothing useful.',
          },
        ],
        ['m.v2', 'single', null, { used: true, answerSupported: true, quality: 'HIGH', missingContext: null, irrelevant: null }],
      ];
      const items: FeedbackInput[] = [];
      for (const [contractVersion, fusionMode, searchFreshness, judgment] of fixture) {
        items.push({
          recallEventId: await recallEvent(t, member, { spaceId: spaces[0], contractVersion, fusionMode, searchFreshness }),
          ...judgment,
        });
      }
      expect(await submitOk(t, member, items)).toMatchObject({ recordedCount: 6, error: null });
      // A seventh event, in a space sealed afterwards: never counted.
      const sealedRecall = await recallEvent(t, member, {
        spaceId: spaces[1],
        contractVersion: 'm.v1',
        fusionMode: 'rrf',
        searchFreshness: 'synchronous',
      });
      expect(
        (
          await submitOk(t, member, [
            {
              recallEventId: sealedRecall,
              used: true,
              answerSupported: true,
              quality: 'LOW',
              missingContext: true,
              irrelevant: true,
              feedbackComment: 'x',
            },
          ])
        ).error,
      ).toBeNull();
      await ok(t, SEAL, { s: spaces[1] }, admin.token);

      const metrics = async (groupBy?: string, filter?: Record<string, unknown>) =>
        (await ok<{ feedbackMetrics: MetricsRow[] }>(t, METRICS, { groupBy, filter }, admin.token)).feedbackMetrics;
      type Expected = Omit<MetricsRow, 'group'>;
      function expectRows(rows: MetricsRow[], expected: Record<string, Expected>) {
        const key = (g: string | null) => (g === null ? '(null)' : g);
        expect(rows.map((r) => key(r.group)).sort()).toEqual(Object.keys(expected).sort());
        for (const row of rows) {
          const want = expected[key(row.group)];
          expect(row.events).toBe(want.events);
          expect(row.usedRate).toBeCloseTo(want.usedRate, 10);
          expect(row.answerSupportedRate).toBeCloseTo(want.answerSupportedRate, 10);
          if (want.averageQuality === null) expect(row.averageQuality).toBeNull();
          else expect(row.averageQuality).toBeCloseTo(want.averageQuality, 10);
          expect(row.missingContextRate).toBeCloseTo(want.missingContextRate, 10);
          expect(row.irrelevantRate).toBeCloseTo(want.irrelevantRate, 10);
        }
      }

      // All six: used 1,2,4,6; supported 1,4,6 (null counts as not); quality (3+1+2+1+3)/5; missing 2,5; irrelevant 2,4.
      const all: Expected = {
        events: 6,
        usedRate: 4 / 6,
        answerSupportedRate: 3 / 6,
        averageQuality: 10 / 5,
        missingContextRate: 2 / 6,
        irrelevantRate: 2 / 6,
      };
      expectRows(await metrics(), { '(null)': all });
      expectRows(await metrics('NONE'), { '(null)': all });

      expectRows(await metrics('CONTRACT_VERSION'), {
        // 1, 2, 3: used 2/3, supported 1/3, quality (3+1)/2, missing 1/3, irrelevant 1/3
        'm.v1': {
          events: 3,
          usedRate: 2 / 3,
          answerSupportedRate: 1 / 3,
          averageQuality: 2,
          missingContextRate: 1 / 3,
          irrelevantRate: 1 / 3,
        },
        // 4, 5, 6: used 2/3, supported 2/3, quality (2+1+3)/3, missing 1/3, irrelevant 1/3
        'm.v2': {
          events: 3,
          usedRate: 2 / 3,
          answerSupportedRate: 2 / 3,
          averageQuality: 2,
          missingContextRate: 1 / 3,
          irrelevantRate: 1 / 3,
        },
      });
      expectRows(await metrics('FUSION_MODE'), {
        // 1, 2, 4: used 3/3, supported 2/3, quality (3+1+2)/3, missing 1/3, irrelevant 2/3
        rrf: { events: 3, usedRate: 1, answerSupportedRate: 2 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 2 / 3 },
        // 3, 5, 6: used 1/3, supported 1/3, quality (1+3)/2, missing 1/3, irrelevant 0
        single: { events: 3, usedRate: 1 / 3, answerSupportedRate: 1 / 3, averageQuality: 2, missingContextRate: 1 / 3, irrelevantRate: 0 },
      });
      expectRows(await metrics('SEARCH_FRESHNESS'), {
        // 1, 3, 5: used 1/3, supported 1/3, quality (3+1)/2, missing 1/3, irrelevant 0
        synchronous: {
          events: 3,
          usedRate: 1 / 3,
          answerSupportedRate: 1 / 3,
          averageQuality: 2,
          missingContextRate: 1 / 3,
          irrelevantRate: 0,
        },
        // 2, 4: used 1, supported 1/2, quality (1+2)/2, missing 1/2, irrelevant 1
        vector_pending: {
          events: 2,
          usedRate: 1,
          answerSupportedRate: 1 / 2,
          averageQuality: 1.5,
          missingContextRate: 1 / 2,
          irrelevantRate: 1,
        },
        // 6
        '(null)': { events: 1, usedRate: 1, answerSupportedRate: 1, averageQuality: 3, missingContextRate: 0, irrelevantRate: 0 },
      });

      // The filter applies before grouping; a group without any quality has a null average.
      expectRows(await metrics('FUSION_MODE', { contractVersion: 'm.v1' }), {
        // 1, 2
        rrf: { events: 2, usedRate: 1, answerSupportedRate: 1 / 2, averageQuality: 2, missingContextRate: 1 / 2, irrelevantRate: 1 / 2 },
        // 3
        single: { events: 1, usedRate: 0, answerSupportedRate: 0, averageQuality: null, missingContextRate: 0, irrelevantRate: 0 },
      });
      expectRows(await metrics('NONE', { quality: 'LOW' }), {
        // 2, 5
        '(null)': { events: 2, usedRate: 1 / 2, answerSupportedRate: 0, averageQuality: 1, missingContextRate: 1, irrelevantRate: 1 / 2 },
      });
      expectRows(await metrics('NONE', { spaceId: spaces[1] }), {});
    });
  });

  describe('Prometheus metrics', () => {
    const SUBMISSIONS = 'recall_feedback_submissions_total';
    const ITEMS = 'recall_feedback_items_total';
    const MISSING = 'recall_feedback_missing_context_total';
    const IRRELEVANT = 'recall_feedback_irrelevant_total';
    const scrape = async () => (await request(t.app.getHttpServer()).get('/metrics')).text;
    /** Samples of a counter, keyed by their label set as printed. */
    function samples(text: string, name: string): Map<string, number> {
      const out = new Map<string, number>();
      for (const line of text.split('\n')) {
        const match = new RegExp(`^${name}(\\{[^}]*\\})? ([0-9.e+]+)$`).exec(line);
        if (match) out.set(match[1] ?? '', Number(match[2]));
      }
      return out;
    }
    const value = (text: string, name: string, labels = '') => samples(text, name).get(labels) ?? 0;

    it('R-FB-9 the four counters move by the submitted judgments, with fixed-enum labels only and no id or comment text', async () => {
      const { admin, member } = await newTeam(t);
      const recalls = await recallEvents(t, member, member.spaceId, 4);
      const before = await scrape();
      const secretComment = 'Customer ACME-7781 said the invoice button broke';
      const clientId = 'client-key-unique-5f1c';

      // recorded: 2 items
      await submitOk(t, member, [
        fine(recalls[0]),
        {
          recallEventId: recalls[1],
          used: false,
          quality: 'LOW',
          missingContext: true,
          irrelevant: true,
          feedbackComment: secretComment,
          irrelevantResultRefs: [{ type: 'EVIDENCE', id: 'ev_button', rank: 2 }],
          hypothesisFeedback: [{ hypothesisId: 'hyp_ok', contradicted: true, feedbackComment: secretComment }],
          clientFeedbackId: clientId,
        },
      ]);
      // partial: 1 item recorded, then a missing comment
      await submitOk(t, member, [fine(recalls[2], { answerSupported: false, quality: 'MEDIUM' }), fine(recalls[3], { irrelevant: true })]);
      // rejected: the first item fails
      await submitOk(t, member, [fine(recalls[3], { missingContext: true })]);
      // disabled
      await setFlag(t, admin, FEEDBACK_FLAG, false);
      await submit(t, member, [fine(recalls[3])]);
      await setFlag(t, admin, FEEDBACK_FLAG, true);

      const after = await scrape();
      const delta = (name: string, labels = '') => value(after, name, labels) - value(before, name, labels);
      expect(delta(SUBMISSIONS, '{outcome="recorded"}')).toBe(1);
      expect(delta(SUBMISSIONS, '{outcome="partial"}')).toBe(1);
      expect(delta(SUBMISSIONS, '{outcome="rejected"}')).toBe(1);
      expect(delta(SUBMISSIONS, '{outcome="disabled"}')).toBe(1);
      expect(delta(ITEMS, '{used="true",answer_supported="true",quality="HIGH"}')).toBe(1);
      expect(delta(ITEMS, '{used="false",answer_supported="unknown",quality="LOW"}')).toBe(1);
      expect(delta(ITEMS, '{used="true",answer_supported="false",quality="MEDIUM"}')).toBe(1);
      expect([...samples(after, ITEMS).keys()].reduce((sum, k) => sum + value(after, ITEMS, k) - value(before, ITEMS, k), 0)).toBe(3);
      expect(delta(MISSING)).toBe(1);
      expect(delta(IRRELEVANT)).toBe(1);

      // Fixed label names and values only.
      const allowed: Record<string, Record<string, string[]>> = {
        [SUBMISSIONS]: { outcome: ['recorded', 'partial', 'rejected', 'disabled'] },
        [ITEMS]: { used: ['true', 'false'], answer_supported: ['true', 'false', 'unknown'], quality: ['LOW', 'MEDIUM', 'HIGH', 'none'] },
        [MISSING]: {},
        [IRRELEVANT]: {},
      };
      for (const [name, labels] of Object.entries(allowed)) {
        const seen = samples(after, name);
        expect(seen.size).toBeGreaterThan(0);
        for (const key of seen.keys()) {
          const pairs = [...key.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]] as const);
          expect(pairs.map(([k]) => k).sort()).toEqual(Object.keys(labels).sort());
          for (const [k, v] of pairs) expect(labels[k]).toContain(v);
        }
      }
      const lines = after.split('\n').filter((l) => l.startsWith('recall_feedback_'));
      for (const line of lines)
        expect(line).toMatch(/^recall_feedback_(submissions|items|missing_context|irrelevant)_total(\{[^}]*\})? \d+$/);

      // No id, comment or ref text anywhere in the exposition.
      const ids = (await t.sql.query('select id, recall_event_id from feedback_events where team_id = $1', [member.teamId])).rows.flatMap(
        (r) => [r.id, r.recall_event_id],
      );
      for (const secret of [
        ...ids,
        ...recalls,
        secretComment,
        'ACME-7781',
        clientId,
        'ev_button',
        'hyp_ok',
        member.teamId,
        member.userId,
        member.spaceId,
      ]) {
        expect(after).not.toContain(secret);
      }
    });
  });
});
