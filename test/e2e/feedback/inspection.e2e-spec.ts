/**
 * Recall feedback through the API: admin inspection of the stored events, visibility, pagination
 * and filters (R-FB-8).
 */
import { FEEDBACK_EVENT, METRICS, type MetricsRow, type Quality } from '../../support/feedback-api';
import { countFeedbackRows, createFeedbackApp, fine, newTeam, recallEvent, submitOk, type Team } from '../../support/feedback-fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { BUMP, RETIRE, SEAL } from '../../support/tenancy';
import type { TestApp, TestIdentity } from '../../support/test-app';

const FEEDBACK_EVENTS = `query($filter: FeedbackEventFilter, $first: Int, $after: String) {
  feedbackEvents(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id recallEventId spaceId spaceGeneration used answerSupported quality contractVersion createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;

interface ListedEvent {
  id: string;
  recallEventId: string;
  spaceId: string;
  spaceGeneration: number;
  used: boolean;
  answerSupported: boolean | null;
  quality: Quality | null;
  contractVersion: string;
  createdAt: string;
}
interface Connection {
  edges: { cursor: string; node: ListedEvent }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

describe('Recall feedback (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('inspection', () => {
    let team: Team;
    /** The visible events, oldest first, as submitted. */
    let visible: {
      id: string;
      spaceId: string;
      quality: Quality | null;
      used: boolean;
      answerSupported: boolean | null;
      contractVersion: string;
    }[];
    let hidden: string[];

    beforeAll(async () => {
      team = await newTeam(t, 4);
      const { admin, member, spaces } = team;
      const [main, toSeal, toRetire, toBump] = spaces;
      visible = [];
      hidden = [];
      const judgments: [Quality | null, boolean, boolean | null, string][] = [
        ['HIGH', true, true, 'c.v1'],
        ['LOW', true, false, 'c.v1'],
        [null, false, null, 'c.v2'],
        ['MEDIUM', true, true, 'c.v2'],
        ['HIGH', false, false, 'c.v1'],
      ];
      for (const [quality, used, answerSupported, contractVersion] of judgments) {
        const recall = await recallEvent(t, member, { spaceId: main, contractVersion });
        const item = { recallEventId: recall, used, answerSupported, quality, feedbackComment: quality === 'LOW' ? 'Weak.' : null };
        const [id] = (await submitOk(t, member, [item])).feedbackEventIds;
        visible.push({ id, spaceId: main, quality, used, answerSupported, contractVersion });
      }
      for (const space of [toSeal, toRetire, toBump]) {
        const [id] = (await submitOk(t, member, [fine(await recallEvent(t, member, { spaceId: space, contractVersion: 'c.v1' }))]))
          .feedbackEventIds;
        hidden.push(id);
      }
      await ok(t, SEAL, { s: toSeal }, admin.token);
      await ok(t, RETIRE, { s: toRetire }, admin.token);
      await ok(t, BUMP, { s: toBump }, admin.token);
      const [id] = (await submitOk(t, member, [fine(await recallEvent(t, member, { spaceId: toBump, contractVersion: 'c.v2' }))]))
        .feedbackEventIds;
      visible.push({ id, spaceId: toBump, quality: 'HIGH', used: true, answerSupported: true, contractVersion: 'c.v2' });
    });

    const list = async (who: TestIdentity, variables: Record<string, unknown> = {}) =>
      (await ok<{ feedbackEvents: Connection }>(t, FEEDBACK_EVENTS, { first: 100, ...variables }, who.token)).feedbackEvents;
    const newestFirst = () => [...visible].reverse().map((v) => v.id);

    it('R-FB-8 lists only events whose space is ACTIVE at their generation, newest first; hidden ones are not gettable', async () => {
      const { admin } = team;
      const page = await list(admin);
      expect(page.edges.map((e) => e.node.id)).toEqual(newestFirst());
      expect(page.pageInfo.hasNextPage).toBe(false);
      const bumped = page.edges[0].node;
      expect(bumped).toMatchObject({ spaceId: team.spaces[3], spaceGeneration: 2 });
      for (const id of hidden)
        expect((await ok<{ feedbackEvent: unknown }>(t, FEEDBACK_EVENT, { id }, admin.token)).feedbackEvent).toBeNull();
      for (const { id } of visible)
        expect((await ok<{ feedbackEvent: { id: string } | null }>(t, FEEDBACK_EVENT, { id }, admin.token)).feedbackEvent?.id).toBe(id);
      // The rows of hidden events are kept, only not shown.
      expect(await countFeedbackRows(t, 'id = any($1)', [hidden])).toBe(3);
    });

    it("R-FB-8 R-TN-5 another team's admin sees none of them", async () => {
      const stranger = await newTeam(t);
      expect((await list(stranger.admin)).edges).toEqual([]);
      expect(
        (await ok<{ feedbackEvent: unknown }>(t, FEEDBACK_EVENT, { id: visible[0].id }, stranger.admin.token)).feedbackEvent,
      ).toBeNull();
      expect(await ok<{ feedbackMetrics: MetricsRow[] }>(t, METRICS, {}, stranger.admin.token)).toEqual({ feedbackMetrics: [] });
    });

    it('R-FB-8 R-FB-9 a non-admin gets FORBIDDEN from feedbackEvents, feedbackEvent and feedbackMetrics', async () => {
      for (const [query, variables] of [
        [FEEDBACK_EVENTS, {}],
        [FEEDBACK_EVENT, { id: visible[0].id }],
        [METRICS, {}],
      ] as const) {
        const res = await gql(t, query, variables, team.member.token);
        expectErrorCode(res, 'FORBIDDEN');
      }
    });

    it('R-FB-8 pagination with first/after walks every event exactly once, newest first', async () => {
      for (const first of [1, 2, 4]) {
        const seen: string[] = [];
        let after: string | null = null;
        let pages = 0;
        for (;;) {
          const page: Connection = await list(team.admin, { first, after });
          pages += 1;
          expect(page.edges.length).toBeLessThanOrEqual(first);
          seen.push(...page.edges.map((e) => e.node.id));
          if (page.edges.length > 0) expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
          expect(pages).toBeLessThan(20);
        }
        expect(seen).toEqual(newestFirst());
        expect(pages).toBe(Math.ceil(visible.length / first));
      }
      expectErrorCode(await gql(t, FEEDBACK_EVENTS, { first: 2, after: 'not-a-cursor' }, team.admin.token), 'BAD_USER_INPUT', {
        field: 'after',
      });
      expectErrorCode(await gql(t, FEEDBACK_EVENTS, { first: 0 }, team.admin.token), 'BAD_USER_INPUT', { field: 'first' });
    });

    it('R-FB-8 each filter narrows the list: space, time range, quality, used, answerSupported, contract version', async () => {
      const { admin, spaces } = team;
      const ids = async (filter: Record<string, unknown>) => (await list(admin, { filter })).edges.map((e) => e.node.id);
      const expected = (keep: (v: (typeof visible)[number], index: number) => boolean) =>
        [...visible.filter(keep)].reverse().map((v) => v.id);

      expect(await ids({ spaceId: spaces[3] })).toEqual(expected((v) => v.spaceId === spaces[3]));
      expect(await ids({ spaceId: spaces[0] })).toEqual(expected((v) => v.spaceId === spaces[0]));
      expect(await ids({ spaceId: spaces[1] })).toEqual([]);
      expect(await ids({ quality: 'HIGH' })).toEqual(expected((v) => v.quality === 'HIGH'));
      expect(await ids({ quality: 'LOW' })).toEqual(expected((v) => v.quality === 'LOW'));
      expect(await ids({ used: false })).toEqual(expected((v) => !v.used));
      expect(await ids({ used: true })).toEqual(expected((v) => v.used));
      expect(await ids({ answerSupported: true })).toEqual(expected((v) => v.answerSupported === true));
      expect(await ids({ answerSupported: false })).toEqual(expected((v) => v.answerSupported === false));
      expect(await ids({ contractVersion: 'c.v2' })).toEqual(expected((v) => v.contractVersion === 'c.v2'));
      expect(await ids({ contractVersion: 'c.v1', used: true })).toEqual(expected((v) => v.contractVersion === 'c.v1' && v.used));
      expect(expected((v) => v.contractVersion === 'c.v1' && v.used)).toHaveLength(2);

      // Time range: since is inclusive, until exclusive (ms-precision boundaries from createdAt).
      const all = (await list(admin)).edges.map((e) => e.node).reverse();
      const since = all[2].createdAt;
      const until = all[4].createdAt;
      expect(await ids({ since, until })).toEqual([all[3].id, all[2].id]);
      expect(await ids({ since })).toEqual(
        all
          .slice(2)
          .map((e) => e.id)
          .reverse(),
      );
      expect(await ids({ until })).toEqual(
        all
          .slice(0, 4)
          .map((e) => e.id)
          .reverse(),
      );
      const bad = await gql(t, FEEDBACK_EVENTS, { filter: { spaceId: 'not-a-uuid' } }, admin.token);
      expectErrorCode(bad, 'BAD_USER_INPUT');
    });
  });
});
