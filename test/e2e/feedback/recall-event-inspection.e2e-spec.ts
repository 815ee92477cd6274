/**
 * The admin's list of recall events (R-FB-8, issue 23): visibility, order and keyset pagination,
 * each filter, and the bounded totalCount.
 */
import { Client } from 'pg';
import { toolResult } from '../../support/fixtures';
import { createFeedbackApp, fine, newTeam, recallEvent, submitOk, type Team } from '../../support/feedback-fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { type ListedRecallEvent, listRecallEvents, RECALL_EVENTS } from '../../support/inspection-api';
import { recallOk, record, uniqueWord } from '../../support/recall-events-fixtures';
import { BUMP, SEAL } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

const BLOCK = `query($c: ID!, $m: String) { recallBlock(conversationId: $c, userMessage: $m) { recallEventId lines { snapshotId } } }`;

describe('recallEvents inspection (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  describe('one team, four spaces', () => {
    let team: Team;
    /** The visible events, oldest first, with what the filters look at. */
    let visible: { id: string; spaceId: string; source: string; toolNames: string[]; degraded: boolean; judged: boolean }[];
    let hidden: string[];

    beforeAll(async () => {
      team = await newTeam(t, 4);
      const { admin, member, spaces } = team;
      const [main, other, toSeal, toBump] = spaces;
      const word = uniqueWord('insp');
      const c = crypto.randomUUID();
      const [siteData] = await record(t, member, [
        toolResult(main, c, { toolName: 'query_site_data', toolOutput: { note: word } }),
        toolResult(main, c, { toolName: 'query_kpi_trend', toolOutput: { note: word } }),
      ]);
      const both = ['query_kpi_trend', 'query_site_data'];
      visible = [];
      hidden = [];

      const search = (await recallOk(t, member, { s: main, q: word })).recallEventId;
      visible.push({ id: search, spaceId: main, source: 'INTERNAL', toolNames: both, degraded: false, judged: false });
      const degraded = await recallEvent(t, member, { spaceId: main, degradedBranches: ['vector'] });
      visible.push({ id: degraded, spaceId: main, source: 'EXTERNAL', toolNames: [], degraded: true, judged: true });
      const elsewhere = await recallEvent(t, member, {
        spaceId: other,
        results: [
          { type: 'TOOL_RESULT', id: siteData.id, rank: 1 },
          { type: 'EVIDENCE', id: 'ev_1', rank: 2 },
        ],
      });
      visible.push({ id: elsewhere, spaceId: other, source: 'EXTERNAL', toolNames: ['query_site_data'], degraded: false, judged: false });
      const block = (await ok<{ recallBlock: { recallEventId: string } }>(t, BLOCK, { c, m: 'what did we fetch before?' }, member.token))
        .recallBlock.recallEventId;
      visible.push({ id: block, spaceId: main, source: 'INTERNAL', toolNames: both, degraded: false, judged: false });

      const sealed = await recallEvent(t, member, { spaceId: toSeal, degradedBranches: ['vector'] });
      const beforeBump = await recallEvent(t, member, { spaceId: toBump, results: [{ type: 'TOOL_RESULT', id: siteData.id, rank: 1 }] });
      expect((await submitOk(t, member, [fine(sealed), fine(beforeBump)])).error).toBeNull();
      hidden.push(sealed, beforeBump);
      await ok(t, SEAL, { s: toSeal }, admin.token);
      await ok(t, BUMP, { s: toBump }, admin.token);
      const bumped = await recallEvent(t, member, { spaceId: toBump });
      visible.push({ id: bumped, spaceId: toBump, source: 'EXTERNAL', toolNames: [], degraded: false, judged: true });
      expect((await submitOk(t, member, [fine(degraded), fine(bumped)])).error).toBeNull();
    });

    const ids = (page: { edges: { node: ListedRecallEvent }[] }) => page.edges.map((e) => e.node.id);
    const expected = (keep: (v: (typeof visible)[number]) => boolean = () => true) =>
      [...visible]
        .filter(keep)
        .reverse()
        .map((v) => v.id);

    it('R-FB-8 recallEvents lists the events whose space is ACTIVE at their generation, newest first; a sealed space and an earlier generation are absent', async () => {
      const page = await listRecallEvents(t, team.admin);
      expect(ids(page)).toEqual(expected());
      expect(page).toMatchObject({ totalCount: visible.length, totalCountIsExact: true, pageInfo: { hasNextPage: false } });
      for (const id of hidden) expect(ids(page)).not.toContain(id);
      const byId = new Map(page.edges.map((e) => [e.node.id, e.node]));
      for (const v of visible) expect(byId.get(v.id)).toMatchObject({ spaceId: v.spaceId, source: v.source, toolNames: v.toolNames });
      expect(byId.get(visible.at(-1)!.id)?.spaceGeneration).toBe(2);
      // Hidden, not deleted.
      expect(Number((await t.sql.query('select count(*) from recall_events where id = any($1)', [hidden])).rows[0].count)).toBe(2);
    });

    it("R-FB-8 R-TN-5 another team's admin lists none of them; a member without admin is FORBIDDEN", async () => {
      const stranger = await newTeam(t);
      await recallEvent(t, stranger.member, { spaceId: stranger.spaces[0] });
      const theirs = await listRecallEvents(t, stranger.admin);
      expect(theirs.edges).toHaveLength(1);
      expect(theirs.totalCount).toBe(1);
      for (const id of [...expected(), ...hidden]) expect(ids(theirs)).not.toContain(id);
      expectErrorCode(await gql(t, RECALL_EVENTS, {}, team.member.token), 'FORBIDDEN');
    });

    it('R-FB-8 pagination with first/after walks every visible event exactly once, newest first; a foreign cursor is BAD_USER_INPUT', async () => {
      for (const first of [1, 2, 4]) {
        const seen: string[] = [];
        let after: string | null = null;
        for (let pages = 1; ; pages += 1) {
          const page = await listRecallEvents(t, team.admin, { first, after });
          expect(page.edges.length).toBeLessThanOrEqual(first);
          expect(page.totalCount).toBe(visible.length);
          seen.push(...ids(page));
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
          expect(pages).toBeLessThan(10);
        }
        expect(seen).toEqual(expected());
      }
      const bad = await gql(t, RECALL_EVENTS, { first: 2, after: 'not-a-cursor' }, team.admin.token);
      expectErrorCode(bad, 'BAD_USER_INPUT', { field: 'after' });
      // A feedbackEvents cursor names an fb_ id: not a position in this list.
      const feedbackCursor = Buffer.from(JSON.stringify(['2026-05-12T10:00:00.123456Z', `fb_${'0'.repeat(26)}`])).toString('base64url');
      expectErrorCode(await gql(t, RECALL_EVENTS, { after: feedbackCursor }, team.admin.token), 'BAD_USER_INPUT', { field: 'after' });
      expectErrorCode(await gql(t, RECALL_EVENTS, { first: 101 }, team.admin.token), 'BAD_USER_INPUT', { field: 'first' });
    });

    it('R-FB-8 each filter narrows the list and its totalCount: space, time range, source, tool name, feedback, degraded', async () => {
      const { admin, spaces } = team;
      const check = async (filter: Record<string, unknown>, keep: (v: (typeof visible)[number]) => boolean) => {
        const page = await listRecallEvents(t, admin, { filter });
        expect({ filter, ids: ids(page) }).toEqual({ filter, ids: expected(keep) });
        expect(page).toMatchObject({ totalCount: expected(keep).length, totalCountIsExact: true });
      };
      await check({ spaceId: spaces[0] }, (v) => v.spaceId === spaces[0]);
      await check({ spaceId: spaces[1].toUpperCase() }, (v) => v.spaceId === spaces[1]);
      await check({ spaceId: spaces[2] }, () => false);
      await check({ source: 'INTERNAL' }, (v) => v.source === 'INTERNAL');
      await check({ source: 'EXTERNAL' }, (v) => v.source === 'EXTERNAL');
      await check({ toolName: 'query_kpi_trend' }, (v) => v.toolNames.includes('query_kpi_trend'));
      await check({ toolName: 'query_site_data' }, (v) => v.toolNames.includes('query_site_data'));
      await check({ toolName: 'query_nothing' }, () => false);
      // The sealed space's event has feedback too: still absent.
      await check({ hasFeedback: true }, (v) => v.judged);
      await check({ hasFeedback: false }, (v) => !v.judged);
      await check({ degraded: true }, (v) => v.degraded);
      await check({ degraded: false }, (v) => !v.degraded);
      await check({ source: 'EXTERNAL', hasFeedback: false }, (v) => v.source === 'EXTERNAL' && !v.judged);
      expect(expected((v) => v.source === 'EXTERNAL' && !v.judged)).toHaveLength(1);

      // Time range: since inclusive, until exclusive (ms-precision boundaries from createdAt).
      const all = (await listRecallEvents(t, admin)).edges.map((e) => e.node).reverse();
      const window = await listRecallEvents(t, admin, { filter: { since: all[1].createdAt, until: all[3].createdAt } });
      expect(ids(window)).toEqual([all[2].id, all[1].id]);
      expect(window.totalCount).toBe(2);

      expectErrorCode(await gql(t, RECALL_EVENTS, { filter: { spaceId: 'not-a-uuid' } }, admin.token), 'BAD_USER_INPUT', {
        field: 'filter.spaceId',
      });
      expectErrorCode(await gql(t, RECALL_EVENTS, { filter: { toolName: 'a\u0000b' } }, admin.token), 'BAD_USER_INPUT', {
        field: 'filter.toolName',
      });
    });

    it('R-FB-8 the count runs only when the query selects totalCount or totalCountIsExact', async () => {
      const statements = jest.spyOn(Client.prototype, 'query');
      try {
        const counts = () =>
          statements.mock.calls.filter(([q]) => /count\(\*\)/.test(typeof q === 'string' ? q : ((q as { text?: string }).text ?? '')))
            .length;
        await ok(t, `{ recallEvents(first: 2) { edges { node { id } } } }`, {}, team.admin.token);
        expect(counts()).toBe(0);
        statements.mockClear();
        const exact = await ok<{ recallEvents: { totalCountIsExact: boolean } }>(
          t,
          `{ recallEvents(first: 2) { totalCountIsExact } }`,
          {},
          team.admin.token,
        );
        expect(exact.recallEvents.totalCountIsExact).toBe(true);
        expect(counts()).toBe(1);
      } finally {
        statements.mockRestore();
      }
    });
  });

  it("R-TN-8 the new functions run as their caller, under row-level security: team A's settings see none of team B's events or snapshots through them", async () => {
    const a = await newTeam(t);
    const b = await newTeam(t);
    const [snapshot] = await record(t, b.member, [toolResult(b.spaces[0], crypto.randomUUID(), { toolName: 'b_tool' })]);
    await recallEvent(t, b.member, { spaceId: b.spaces[0], results: [{ type: 'TOOL_RESULT', id: snapshot.id, rank: 1 }] });
    const app = new Client({ connectionString: t.database.appUrl });
    await app.connect();
    try {
      const asTeam = async (team: string, sql: string, params: unknown[]) => {
        await app.query('begin');
        try {
          await app.query(`select set_config('app.team_id', $1, true)`, [team]);
          return (await app.query(sql, params)).rows;
        } finally {
          await app.query('rollback');
        }
      };
      const visible = 'select count(*)::int as n from recall_events_visible($1)';
      const toolNames = 'select tool_results_tool_names($1, $2, $3::uuid[], $4::uuid[]) as names';
      const names = (team: string) => [team, b.member.userId, `{${b.spaces[0]}}`, `{${snapshot.id}}`];
      // B's own settings see B's rows through them (the check can fail) …
      expect(await asTeam(b.admin.teamId, visible, [b.admin.teamId])).toEqual([{ n: 1 }]);
      expect(await asTeam(b.admin.teamId, toolNames, names(b.admin.teamId))).toEqual([{ names: ['b_tool'] }]);
      // … A's settings naming B see nothing: the policies hold under the functions' own team predicate.
      expect(await asTeam(a.admin.teamId, visible, [b.admin.teamId])).toEqual([{ n: 0 }]);
      expect(await asTeam(a.admin.teamId, toolNames, names(b.admin.teamId))).toEqual([{ names: [] }]);
      const definers = await t.sql.query(
        `select proname, prosecdef from pg_proc where proname in ('recall_events_visible', 'tool_results_tool_names') order by 1`,
      );
      expect(definers.rows).toEqual([
        { proname: 'recall_events_visible', prosecdef: false },
        { proname: 'tool_results_tool_names', prosecdef: false },
      ]);
    } finally {
      await app.end();
    }
  });

  it('R-FB-8 totalCount stops at INSPECTION_COUNT_CAP (10,000): 10,001 visible events count 10,000, not exact; a narrower filter counts exactly', async () => {
    const { admin, member, spaces } = await newTeam(t, 2);
    const started = Date.now();
    // 10,001 external events straight into the table (one statement), and one in a sealed space.
    await t.sql.query(
      `insert into recall_events (team_id, id, profile_id, space_id, space_generation, contract_version, results, source, created_at)
       select $1, 'rec_BULK' || lpad(i::text, 22, '0'), $2, $3, 1, 'bulk.v1', '[]'::jsonb, 'EXTERNAL', now() - i * interval '1 second'
         from generate_series(1, 10001) i`,
      [member.teamId, member.userId, spaces[0]],
    );
    await recallEvent(t, member, { spaceId: spaces[1] });
    await ok(t, SEAL, { s: spaces[1] }, admin.token);
    const internal = (await recallOk(t, member, { s: spaces[0], q: uniqueWord('none') })).recallEventId;

    const page = await listRecallEvents(t, admin, { first: 3 });
    expect(page).toMatchObject({ totalCount: 10_000, totalCountIsExact: false, pageInfo: { hasNextPage: true } });
    expect(page.edges[0].node.id).toBe(internal);
    expect(await listRecallEvents(t, admin, { first: 1, filter: { source: 'INTERNAL' } })).toMatchObject({
      totalCount: 1,
      totalCountIsExact: true,
    });
    // One fewer matching: exact again.
    await t.sql.query(`delete from recall_events where id = 'rec_BULK' || lpad('1', 22, '0')`);
    expect(await listRecallEvents(t, admin, { first: 1, filter: { source: 'EXTERNAL' } })).toMatchObject({
      totalCount: 10_000,
      totalCountIsExact: true,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
