/**
 * feedbackEvents' filters of issue 23 (submitter, tool name, missing context, irrelevant, comment)
 * and its bounded totalCount (R-FB-8), each under the inspection's visibility.
 */
import { Client } from 'pg';
import { toolResult } from '../../support/fixtures';
import type { FeedbackInput, MetricsRow } from '../../support/feedback-api';
import { createFeedbackApp, FEEDBACK_SCOPES, fine, newTeam, recallEvent, submitOk, type Team } from '../../support/feedback-fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { FEEDBACK_EVENTS, type ListedFeedbackEvent, listFeedbackEvents } from '../../support/inspection-api';
import { record } from '../../support/recall-events-fixtures';
import { BUMP, newMember, SEAL } from '../../support/tenancy';
import type { TestApp, TestIdentity } from '../../support/test-app';

const METRICS = `query($filter: FeedbackEventFilter) { feedbackMetrics(filter: $filter) { events } }`;

describe('feedbackEvents filters and count (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('one team: two submitters, two tools, flags and comments', () => {
    let team: Team;
    let colleague: TestIdentity;
    /** The visible events, oldest first. */
    let visible: {
      id: string;
      actorId: string;
      toolNames: string[];
      missingContext: boolean | null;
      irrelevant: boolean | null;
      commented: boolean;
    }[];
    let hidden: string[];
    let stranger: Team;

    beforeAll(async () => {
      team = await newTeam(t, 3);
      const { admin, member, spaces } = team;
      const [main, toSeal, toBump] = spaces;
      colleague = await newMember(t, admin, spaces, FEEDBACK_SCOPES);
      const c = crypto.randomUUID();
      const [kpi, site] = await record(t, member, [
        toolResult(main, c, { toolName: 'kpi_tool' }),
        toolResult(main, c, { toolName: 'site_tool' }),
      ]);
      const refs = (...ids: string[]) => ids.map((id, i) => ({ type: 'TOOL_RESULT', id, rank: i + 1 }));
      const rK = await recallEvent(t, member, { spaceId: main, results: refs(kpi.id) });
      const rS = await recallEvent(t, member, { spaceId: main, results: refs(site.id) });
      const rKS = await recallEvent(t, member, { spaceId: main, results: refs(kpi.id, site.id) });
      // A member reads and judges only their own snapshots and recalls (R-TN-8): the colleague's are theirs.
      const theirConversation = crypto.randomUUID();
      const [theirKpi, theirSite] = await record(t, colleague, [
        toolResult(main, theirConversation, { toolName: 'kpi_tool' }),
        toolResult(main, theirConversation, { toolName: 'site_tool' }),
      ]);
      const theirKS = await recallEvent(t, colleague, { spaceId: main, results: refs(theirKpi.id, theirSite.id) });
      const theirN = await recallEvent(t, colleague, { spaceId: main });

      visible = [];
      const judge = async (who: TestIdentity, item: FeedbackInput, toolNames: string[]) => {
        const [id] = (await submitOk(t, who, [item])).feedbackEventIds;
        expect(id).toBeDefined();
        const commented = typeof item.feedbackComment === 'string' && item.feedbackComment.length > 0;
        visible.push({
          id,
          actorId: who.userId,
          toolNames,
          missingContext: item.missingContext ?? null,
          irrelevant: item.irrelevant ?? null,
          commented,
        });
      };
      await judge(member, fine(rK), ['kpi_tool']);
      await judge(member, fine(rS, { missingContext: true, feedbackComment: 'Missing the March data.' }), ['site_tool']);
      await judge(colleague, fine(theirKS, { irrelevant: true, feedbackComment: 'One bad hit.' }), ['kpi_tool', 'site_tool']);
      await judge(colleague, fine(theirN, { missingContext: false, irrelevant: false, feedbackComment: '' }), []);
      await judge(member, fine(rKS, { quality: 'LOW', missingContext: true, irrelevant: true, feedbackComment: 'Weak.' }), [
        'kpi_tool',
        'site_tool',
      ]);

      // The same judgments in a space sealed afterwards and in a generation bumped past: never listed.
      hidden = [];
      const flagged = { missingContext: true, irrelevant: true, feedbackComment: 'Hidden.' };
      for (const [who, space] of [
        [member, toSeal],
        [colleague, toBump],
      ] as const) {
        const recall = await recallEvent(t, who, { spaceId: space, results: refs(kpi.id, site.id) });
        hidden.push(...(await submitOk(t, who, [fine(recall, flagged)])).feedbackEventIds);
      }
      await ok(t, SEAL, { s: toSeal }, admin.token);
      await ok(t, BUMP, { s: toBump }, admin.token);

      stranger = await newTeam(t);
      const [foreign] = await record(t, stranger.member, [toolResult(stranger.spaces[0], crypto.randomUUID(), { toolName: 'kpi_tool' })]);
      const theirs = await recallEvent(t, stranger.member, { spaceId: stranger.spaces[0], results: refs(foreign.id) });
      await submitOk(t, stranger.member, [fine(theirs, flagged)]);
    });

    const expected = (keep: (v: (typeof visible)[number]) => boolean) =>
      [...visible]
        .filter(keep)
        .reverse()
        .map((v) => v.id);

    it('R-FB-8 each new filter narrows the list and its totalCount; sealed and earlier-generation events stay absent under every one', async () => {
      const { admin, member } = team;
      const check = async (filter: Record<string, unknown>, keep: (v: (typeof visible)[number]) => boolean) => {
        const page = await listFeedbackEvents(t, admin, { filter });
        const ids = page.edges.map((e) => e.node.id);
        expect({ filter, ids }).toEqual({ filter, ids: expected(keep) });
        expect(page).toMatchObject({ totalCount: ids.length, totalCountIsExact: true });
        for (const id of hidden) expect(ids).not.toContain(id);
        const metrics = await ok<{ feedbackMetrics: MetricsRow[] }>(t, METRICS, { filter }, admin.token);
        expect(metrics.feedbackMetrics.map((r) => r.events)).toEqual(ids.length > 0 ? [ids.length] : []);
      };
      await check({}, () => true);
      await check({ userId: member.userId }, (v) => v.actorId === member.userId);
      await check({ userId: colleague.userId.toUpperCase() }, (v) => v.actorId === colleague.userId);
      await check({ userId: admin.userId }, () => false);
      await check({ userId: stranger.member.userId }, () => false);
      await check({ toolName: 'kpi_tool' }, (v) => v.toolNames.includes('kpi_tool'));
      await check({ toolName: 'site_tool' }, (v) => v.toolNames.includes('site_tool'));
      await check({ toolName: 'kpi' }, () => false);
      await check({ missingContext: true }, (v) => v.missingContext === true);
      await check({ missingContext: false }, (v) => v.missingContext !== true);
      await check({ irrelevant: true }, (v) => v.irrelevant === true);
      await check({ irrelevant: false }, (v) => v.irrelevant !== true);
      await check({ hasComment: true }, (v) => v.commented);
      await check({ hasComment: false }, (v) => !v.commented);
      await check(
        { userId: member.userId, toolName: 'site_tool', missingContext: true, hasComment: true },
        (v) => v.actorId === member.userId && v.toolNames.includes('site_tool') && v.missingContext === true && v.commented,
      );
      expect(expected((v) => v.actorId === member.userId && v.toolNames.includes('site_tool') && v.missingContext === true)).toHaveLength(
        2,
      );
    });

    it('R-FB-8 the listed events carry their tool names; a bad userId or toolName is BAD_USER_INPUT naming the field', async () => {
      const page = await listFeedbackEvents(t, team.admin);
      const byId = new Map(page.edges.map((e): [string, ListedFeedbackEvent] => [e.node.id, e.node]));
      for (const v of visible) expect(byId.get(v.id)).toMatchObject({ actorId: v.actorId, toolNames: v.toolNames });
      expectErrorCode(await gql(t, FEEDBACK_EVENTS, { filter: { userId: 'nope' } }, team.admin.token), 'BAD_USER_INPUT', {
        field: 'filter.userId',
      });
      expectErrorCode(await gql(t, METRICS, { filter: { userId: 'nope' } }, team.admin.token), 'BAD_USER_INPUT', {
        field: 'filter.userId',
      });
      expectErrorCode(await gql(t, FEEDBACK_EVENTS, { filter: { toolName: 'a\u0000b' } }, team.admin.token), 'BAD_USER_INPUT', {
        field: 'filter.toolName',
      });
    });

    it("R-FB-8 R-TN-5 another team's admin finds none of them under the new filters", async () => {
      for (const filter of [{ toolName: 'kpi_tool' }, { missingContext: true }, { userId: team.member.userId }, { hasComment: true }]) {
        const ids = (await listFeedbackEvents(t, stranger.admin, { filter })).edges.map((e) => e.node.id);
        for (const v of visible) expect(ids).not.toContain(v.id);
      }
    });

    it('R-FB-8 the count runs only when the query selects it, and pages keep the whole count', async () => {
      const statements = jest.spyOn(Client.prototype, 'query');
      try {
        const counts = () =>
          statements.mock.calls.filter(([q]) => /count\(\*\)/.test(typeof q === 'string' ? q : ((q as { text?: string }).text ?? '')))
            .length;
        await ok(t, `{ feedbackEvents(first: 2) { edges { node { id } } pageInfo { hasNextPage } } }`, {}, team.admin.token);
        expect(counts()).toBe(0);
        const page = await ok<{ feedbackEvents: { totalCount: number; edges: unknown[] } }>(
          t,
          `{ feedbackEvents(first: 2) { totalCount edges { node { id } } } }`,
          {},
          team.admin.token,
        );
        expect(page.feedbackEvents).toMatchObject({ totalCount: visible.length });
        expect(page.feedbackEvents.edges).toHaveLength(2);
        expect(counts()).toBe(1);
      } finally {
        statements.mockRestore();
      }
    });
  });

  it('R-FB-8 totalCount stops at INSPECTION_COUNT_CAP (10,000): 10,001 visible events count 10,000, not exact; filtered to fewer, exact', async () => {
    const { admin, member, spaces } = await newTeam(t);
    const recall = await recallEvent(t, member, { spaceId: spaces[0] });
    const [model] = (await submitOk(t, member, [fine(recall)])).feedbackEventIds;
    // 10,000 copies of it in one statement: 10,001 in all.
    await t.sql.query(
      `insert into feedback_events (team_id, id, recall_event_id, profile_id, actor_id, space_id, space_generation, query_fingerprint,
         contract_version, ranking_version, fusion_mode, search_freshness, degraded_branches, returned_refs, tool_names, used,
         answer_supported, quality, missing_context, irrelevant, feedback_comment, irrelevant_result_refs, hypothesis_feedback, created_at)
       select team_id, 'fb_BULK' || lpad(i::text, 23, '0'), recall_event_id, profile_id, actor_id, space_id, space_generation,
              query_fingerprint, contract_version, ranking_version, fusion_mode, search_freshness, degraded_branches, returned_refs,
              tool_names, used, answer_supported, quality, missing_context, irrelevant, feedback_comment, irrelevant_result_refs,
              hypothesis_feedback, created_at - i * interval '1 second'
         from feedback_events, generate_series(1, 10000) i
        where id = $1`,
      [model],
    );
    const first = await listFeedbackEvents(t, admin, { first: 2 });
    expect(first).toMatchObject({ totalCount: 10_000, totalCountIsExact: false, pageInfo: { hasNextPage: true } });
    expect(first.edges[0].node.id).toBe(model);
    // Exactly the cap is exact.
    await t.sql.query(`delete from feedback_events where id = 'fb_BULK' || lpad('1', 23, '0')`);
    expect(await listFeedbackEvents(t, admin, { first: 1 })).toMatchObject({ totalCount: 10_000, totalCountIsExact: true });
    // A filter the copies do not match counts exactly.
    const [flagged] = (
      await submitOk(t, member, [
        fine(await recallEvent(t, member, { spaceId: spaces[0] }), { missingContext: true, feedbackComment: 'x' }),
      ])
    ).feedbackEventIds;
    const narrowed = await listFeedbackEvents(t, admin, { first: 5, filter: { missingContext: true } });
    expect(narrowed).toMatchObject({ totalCount: 1, totalCountIsExact: true });
    expect(narrowed.edges.map((e) => e.node.id)).toEqual([flagged]);
  });
});
