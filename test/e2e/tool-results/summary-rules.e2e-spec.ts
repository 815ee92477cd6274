/**
 * Team-defined summary rules through the API (R-RC-3): an admin's document for a tool gives the
 * team's snapshots written afterwards its line, in the handle and in the "Previously fetched"
 * block; stored handles, other teams and other tools keep theirs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import request from 'supertest';
import { toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, type GraphqlResponse, ok } from '../../support/graphql';
import {
  DELETE_SUMMARY_RULE,
  ORDERS_RULE,
  SET_SUMMARY_RULE,
  setSummaryRule,
  SUMMARY_RULES,
  type SummaryRuleRow,
} from '../../support/summary-rules';
import { handlePoolBusyDuring, metricValue, OVER_BUDGET_FALLBACKS, ruleBomb } from '../../support/handle-pool';
import { newMember, newSpace } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const RECORD = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { snapshots { id handle { summaryOneliner } } }
}`;
const BY_ID = `query($id: ID!) { toolResult(id: $id) { handle { summaryOneliner stub } } }`;
const BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { lines { snapshotId text } } }`;
const DELETE_USER = `mutation($u: ID!) { deleteUserData(userId: $u) { userId } }`;

interface Team {
  admin: TestIdentity;
  member: SpaceMember;
}

const ORDERS = {
  orders: [
    { id: 1, placed_at: '2026-05-01' },
    { id: 2, placed_at: '2026-05-10' },
  ],
};
const ORDERS_GENERIC_LINE = '1 key: orders[2]; newest 2026-05-10';
const ORDERS_RULE_LINE = '2 orders, latest 2026-05-10';

const KPI_INPUT = { metric: 'active_members', granularity: 'week' };
const KPI = { ...KPI_INPUT, points: [100, 101, 103, 104, 106, 109, 112].map((value, i) => ({ period: `w${i}`, value })) };
const KPI_BUILT_IN_LINE = '7-week trend, +12%';
const KPI_RULE = {
  version: 1,
  rules: [
    {
      when: { metric: 'active_members' },
      parts: [
        { kind: 'percentChange', path: 'points', field: 'value' },
        { kind: 'topBy', path: 'points', orderBy: 'value', nameField: 'period', suffix: 'at the peak' },
      ],
    },
  ],
};

describe('Summary rules (e2e)', () => {
  let t: TestApp;
  let a: Team;
  let b: Team;

  async function newTeam(): Promise<Team> {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin);
    return { admin, member: { ...(await newMember(t, admin, [spaceId], ['memory:read', 'memory:write'])), spaceId } };
  }

  /** Records one tool result in the conversation; its snapshot id and stored one-liner. */
  async function record(who: SpaceMember, conversationId: string, toolName: string, toolInput: unknown, toolOutput: unknown) {
    const input = [toolResult(who.spaceId, conversationId, { toolName, toolInput, toolOutput })];
    const { recordToolResults } = await ok<{ recordToolResults: { snapshots: { id: string; handle: { summaryOneliner: string } }[] } }>(
      t,
      RECORD,
      { input },
      who.token,
    );
    const [snapshot] = recordToolResults.snapshots;
    return { id: snapshot.id, line: snapshot.handle.summaryOneliner };
  }

  const storedLine = async (who: SpaceMember, id: string): Promise<string> =>
    (await ok<{ toolResult: { handle: { summaryOneliner: string } } }>(t, BY_ID, { id }, who.token)).toolResult.handle.summaryOneliner;

  /** The block's lines of the conversation, as snapshot id → line text. */
  async function blockLines(who: SpaceMember, c: string): Promise<Map<string, string>> {
    const { recallBlock } = await ok<{ recallBlock: { lines: { snapshotId: string; text: string }[] } }>(t, BLOCK, { c }, who.token);
    return new Map(recallBlock.lines.map((line) => [line.snapshotId, line.text]));
  }

  const listRules = async (admin: TestIdentity): Promise<SummaryRuleRow[]> =>
    (await ok<{ toolSummaryRules: SummaryRuleRow[] }>(t, SUMMARY_RULES, {}, admin.token)).toolSummaryRules;

  const storedRows = async (teamId: string) =>
    (
      await t.sql.query<{ tool_name: string; rule: unknown; version: number }>(
        'select tool_name, rule, version from tool_summary_rules where team_id = $1 order by tool_name',
        [teamId],
      )
    ).rows;

  /** Waits until `n` backends wait for a team row lock (the rule writes queued behind the blocker). */
  async function waitForTeamLockWaiters(n: number): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const { rows } = await t.sql.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from teams%for no key update%'`,
      );
      if (rows[0].n >= n) return;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${n} rule writes waited for the team's row lock`);
      await sleep(25); // a pause between reads of pg_stat_activity, not a wait in their place
    }
  }

  beforeAll(async () => {
    // Four writes of one team wait on its row lock at once below: more turns than the three teams share (R-TN-11).
    t = await createTestApp({ MAX_IN_FLIGHT: '8' });
    a = await newTeam();
    b = await newTeam();
  });
  afterAll(() => t?.close());

  it("R-RC-3 a team's rule gives its new snapshots of the tool the rule's line; earlier snapshots and other teams keep theirs", async () => {
    const ca = crypto.randomUUID();
    const cb = crypto.randomUUID();
    const before = await record(a.member, ca, 'search_orders', { status: 'open' }, ORDERS);
    expect(before.line).toBe(ORDERS_GENERIC_LINE);

    const saved = await setSummaryRule(t, a.admin, 'search_orders', ORDERS_RULE);
    expect(saved).toEqual({ toolName: 'search_orders', rule: ORDERS_RULE, version: 1, updatedAt: expect.any(String) });

    const after = await record(a.member, ca, 'search_orders', { status: 'open' }, ORDERS);
    const otherTeam = await record(b.member, cb, 'search_orders', { status: 'open' }, ORDERS);
    expect(after.line).toBe(ORDERS_RULE_LINE);
    expect(otherTeam.line).toBe(ORDERS_GENERIC_LINE);
    // The snapshot written before the rule keeps the line it was stored with.
    expect(await storedLine(a.member, before.id)).toBe(ORDERS_GENERIC_LINE);
    expect(await storedLine(a.member, after.id)).toBe(ORDERS_RULE_LINE);

    const linesA = await blockLines(a.member, ca);
    expect(linesA.get(after.id)).toMatch(/^- \d{4}-\d{2}-\d{2} search_orders\(status="open"\): 2 orders, latest 2026-05-10$/);
    expect(linesA.get(before.id)).toMatch(/: 1 key: orders\[2\]; newest 2026-05-10$/);
    expect((await blockLines(b.member, cb)).get(otherTeam.id)).toMatch(/: 1 key: orders\[2\]; newest 2026-05-10$/);

    expect(await listRules(a.admin)).toEqual([saved]);
    expect(await listRules(b.admin)).toEqual([]);
    expect(await storedRows(b.admin.teamId)).toEqual([]);
  });

  it('R-RC-3 a team overrides a built-in tool; version counts the changes; delete brings the built-in line back', async () => {
    const c = crypto.randomUUID();
    expect((await record(a.member, c, 'query_kpi_trend', KPI_INPUT, KPI)).line).toBe(KPI_BUILT_IN_LINE);

    expect((await setSummaryRule(t, a.admin, 'query_kpi_trend', KPI_RULE)).version).toBe(1);
    const overridden = await record(a.member, c, 'query_kpi_trend', KPI_INPUT, KPI);
    expect(overridden.line).toBe('+12%, w6 112 at the peak');
    // Another team, and another metric (the document's only rule does not match: generic, not the built-in).
    expect((await record(b.member, crypto.randomUUID(), 'query_kpi_trend', KPI_INPUT, KPI)).line).toBe(KPI_BUILT_IN_LINE);
    expect((await record(a.member, c, 'query_kpi_trend', { metric: 'churn' }, KPI)).line).toBe('3 keys: metric, granularity, points[7]');

    // A change counts; the same document again does not.
    const percentOnly = { version: 1, rules: [{ parts: [{ kind: 'percentChange', path: 'points', field: 'value' }] }] };
    expect((await setSummaryRule(t, a.admin, 'query_kpi_trend', percentOnly)).version).toBe(2);
    expect((await setSummaryRule(t, a.admin, 'query_kpi_trend', percentOnly)).version).toBe(2);
    expect((await record(a.member, c, 'query_kpi_trend', KPI_INPUT, KPI)).line).toBe('+12%');

    expect(
      (await ok<{ deleteToolSummaryRule: boolean }>(t, DELETE_SUMMARY_RULE, { tool: 'query_kpi_trend' }, a.admin.token))
        .deleteToolSummaryRule,
    ).toBe(true);
    expect((await record(a.member, c, 'query_kpi_trend', KPI_INPUT, KPI)).line).toBe(KPI_BUILT_IN_LINE);
    expect(await storedLine(a.member, overridden.id)).toBe('+12%, w6 112 at the peak');
    expect(
      (await ok<{ deleteToolSummaryRule: boolean }>(t, DELETE_SUMMARY_RULE, { tool: 'query_kpi_trend' }, a.admin.token))
        .deleteToolSummaryRule,
    ).toBe(false);
    expect((await listRules(a.admin)).map((rule) => rule.toolName)).not.toContain('query_kpi_trend');
  });

  it('R-RC-3 a bad rule or tool name is BAD_USER_INPUT naming the part and what to change, with nothing stored', async () => {
    const team = await newTeam();
    const good = { version: 1, rules: [{ parts: [{ kind: 'count', path: 'invoices', label: 'invoices' }] }] };
    await setSummaryRule(t, team.admin, 'lookup_invoices', good);
    const bad = { version: 1, rules: [{ parts: [good.rules[0].parts[0], { kind: 'sum', path: 'invoices', field: 'total' }] }] };

    for (const tool of ['lookup_invoices', 'search_orders']) {
      const res = await gql(t, SET_SUMMARY_RULE, { tool, rule: bad }, team.admin.token);
      const error = expectErrorCode(res, 'BAD_USER_INPUT', { field: 'rule.rules[0].parts[1].kind' });
      expect(error.message).toBe(
        'rule.rules[0].parts[1].kind: unknown kind "sum"; use one of count, maxDate, topBy, seriesLength, percentChange',
      );
    }
    const longPart = { kind: 'count', path: 'invoices', label: 'x'.repeat(200) };
    const tooLong = { version: 1, rules: Array.from({ length: 3 }, () => ({ parts: Array.from({ length: 8 }, () => longPart) })) };
    const longRes = await gql(t, SET_SUMMARY_RULE, { tool: 'lookup_invoices', rule: tooLong }, team.admin.token);
    expect(expectErrorCode(longRes, 'BAD_USER_INPUT', { field: 'rule' }).message).toBe(
      'rule: longer than 4096 characters of JSON; use fewer or shorter rules',
    );
    expectErrorCode(await gql(t, SET_SUMMARY_RULE, { tool: 'lookup invoices', rule: good }, team.admin.token), 'BAD_USER_INPUT', {
      field: 'toolName',
    });
    expectErrorCode(await gql(t, DELETE_SUMMARY_RULE, { tool: '' }, team.admin.token), 'BAD_USER_INPUT', { field: 'toolName' });

    // The stored document and its version are as they were; no document for the other tool.
    expect(await storedRows(team.admin.teamId)).toEqual([{ tool_name: 'lookup_invoices', rule: good, version: 1 }]);
  });

  it('R-RC-3 R-TN-6 a token without the admin scope can neither read nor change the rules', async () => {
    const team = await newTeam();
    await setSummaryRule(t, team.admin, 'search_orders', ORDERS_RULE);
    for (const [query, variables] of [
      [SUMMARY_RULES, {}],
      [SET_SUMMARY_RULE, { tool: 'search_orders', rule: { version: 1, rules: [{ parts: [{ kind: 'count', path: '', label: 'rows' }] }] } }],
      [DELETE_SUMMARY_RULE, { tool: 'search_orders' }],
    ] as const) {
      expectErrorCode(await gql(t, query, variables, team.member.token), 'FORBIDDEN');
    }
    expect(await storedRows(team.admin.teamId)).toEqual([{ tool_name: 'search_orders', rule: ORDERS_RULE, version: 1 }]);
  });

  it('R-RC-3 a team holds documents for at most 100 tools, also when admins add them at once', async () => {
    const team = await newTeam();
    const rule = { version: 1, rules: [{ parts: [{ kind: 'count', path: 'rows', label: 'rows' }] }] };
    // 98 set directly, then four new tools at once, released together from behind a lock of the team's row: the write path
    // waits for that lock (a write that did not would pass this point alone), and then lets exactly two in.
    await t.sql.query(
      `insert into tool_summary_rules (team_id, tool_name, rule, version) select $1, 'tool_' || i, $2::jsonb, 1 from generate_series(1, 98) i`,
      [team.admin.teamId, JSON.stringify(rule)],
    );
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    let racing: GraphqlResponse[];
    try {
      await blocker.query('begin');
      await blocker.query('select 1 from teams where id = $1 for no key update', [team.admin.teamId]);
      const requests = ['new_1', 'new_2', 'new_3', 'new_4'].map((tool) => gql(t, SET_SUMMARY_RULE, { tool, rule }, team.admin.token));
      await waitForTeamLockWaiters(4);
      await blocker.query('commit');
      racing = await Promise.all(requests);
    } finally {
      await blocker.end();
    }
    const refused = racing.filter((res) => res.errors !== undefined);
    expect(racing.length - refused.length).toBe(2);
    for (const res of refused) {
      const error = expectErrorCode(res, 'BAD_USER_INPUT', { field: 'toolName' });
      expect(error.message).toMatch(
        /^The team already has summary rules for 100 tools, the limit; delete one \(deleteToolSummaryRule\) before adding rules for "new_\d"\.$/,
      );
    }
    expect(await storedRows(team.admin.teamId)).toHaveLength(100);
    expect(await listRules(team.admin)).toHaveLength(100);

    // At the limit a tool that has a document can still change it, and a deletion makes room.
    const changed = { version: 1, rules: [{ parts: [{ kind: 'count', path: 'rows', label: 'lines' }] }] };
    expect((await setSummaryRule(t, team.admin, 'tool_1', changed)).version).toBe(2);
    await ok(t, DELETE_SUMMARY_RULE, { tool: 'tool_2' }, team.admin.token);
    expect((await setSummaryRule(t, team.admin, 'tool_101', rule)).version).toBe(1);
    expect(await storedRows(team.admin.teamId)).toHaveLength(100);
  });

  it("R-RC-3 R-TN-10 a team admin's rule bomb over a 2 MB output is read off the event loop within its budget: the write gets the generic line, the fallback is counted, another team's { me } is answered first", async () => {
    const bomber = await newTeam();
    await setSummaryRule(t, bomber.admin, 'list_rows', ruleBomb('at'));
    // 46,000 rows, 2 MB: every part evaluated, 2.6 million dates read on the event loop (9.6 s in issue 53).
    const rows = Array.from({ length: 46_000 }, (_, i) => ({ id: i, at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() }));
    const input = [toolResult(bomber.member.spaceId, crypto.randomUUID(), { toolName: 'list_rows', toolInput: {}, toolOutput: { rows } })];
    const fallbacks = await metricValue(t, OVER_BUDGET_FALLBACKS);
    const answered: string[] = [];
    const bomb = gql<{ recordToolResults: { snapshots: { handle: { summaryOneliner: string } }[] } }>(
      t,
      RECORD,
      { input },
      bomber.member.token,
    );
    void bomb.then(() => answered.push('bomb'));
    await handlePoolBusyDuring(t, bomb);
    const me = await gql<{ me: { userId: string } }>(t, '{ me { userId } }', {}, a.member.token);
    answered.push('me');
    const written = await bomb;
    expect(answered).toEqual(['me', 'bomb']);
    expect(me.data?.me.userId).toBe(a.member.userId);
    expect(written.status).toBe(200);
    expect(written.errors).toBeUndefined();
    // The rules ran out of their 100,000 row visits: the generic line, counted.
    expect(written.data?.recordToolResults.snapshots[0].handle.summaryOneliner).toBe('1 key: rows[46000]; newest 2026-01-03');
    expect(await metricValue(t, OVER_BUDGET_FALLBACKS)).toBe(fallbacks + 1);
    const metrics = (await request(t.app.getHttpServer()).get('/metrics')).text;
    expect(metrics).toMatch(/^tool_results_summary_rule_fallbacks_total\{reason="over_budget"\} \d+$/m);
    expect(metrics).not.toMatch(/tool_results_summary_rule_fallbacks_total\{[^}]*(team|tool)/);
  });

  it("R-RC-3 R-RT-4 the rules are the team's: a user's deletion leaves them, the team's deletion takes them", async () => {
    const team = await newTeam();
    const otherAdmin = await identity(['admin'], { teamId: team.admin.teamId });
    await setSummaryRule(t, team.admin, 'search_orders', ORDERS_RULE);
    await ok(t, DELETE_USER, { u: team.admin.userId }, otherAdmin.token);
    expect(await storedRows(team.admin.teamId)).toHaveLength(1);
    expect((await record(team.member, crypto.randomUUID(), 'search_orders', {}, ORDERS)).line).toBe(ORDERS_RULE_LINE);

    await t.sql.query('delete from teams where id = $1', [team.admin.teamId]);
    expect(await storedRows(team.admin.teamId)).toEqual([]);
  });
});
