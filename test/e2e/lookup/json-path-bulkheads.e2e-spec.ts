/**
 * R-TN-10: JSONPath the library evaluates runs off the event loop, in a bounded pool of worker
 * threads. While one team floods it, with the backtracking pattern of the issue (which RE2 now
 * answers at once) and with filters that really exceed the CPU budget, another team's requests
 * keep being answered, and every flood call gets a bracketed text, never an error.
 */
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { gql, ok } from '../../support/graphql';
import { metricValue } from '../../support/handle-pool';
import { createTestApp, type TestApp } from '../../support/test-app';
import { listenForMcp } from '../mcp/support/mcp';

const CONCURRENT_REQUESTS = 4;
const ALIASES = 8;
const BACKTRACKING = "$.items[?match(@.a,'(a|a)*b')]";
/** Filters nested in filters over 300 items: 27 million nodes visited, far past 1,000 ms. */
const CUBIC = '$.items[?count($.items[?count($.items[*]) > 1]) > 1].v';

const BUSY = '[tool_memory json_path not evaluated: the service is busy with other JSONPath evaluations; retry in a moment]';
const TIMED_OUT = /^\[tool_memory json_path took too long: /;

/** One request with `count` aliases of recallToolResult over the same snapshot and path. */
function aliased(count: number): string {
  const fields = Array.from({ length: count }, (_, index) => `r${index}: recallToolResult(memId: $m, jsonPath: $p)`);
  return `query($m: String!, $p: String) { ${fields.join(' ')} }`;
}

async function recordOne(t: TestApp, member: SpaceMember, toolOutput: unknown): Promise<string> {
  const input = [toolResult(member.spaceId, crypto.randomUUID(), { toolName: 'list_items', toolOutput })];
  const recorded = await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(t, RECORD, { input }, member.token);
  return recorded.recordToolResults.snapshots[0].memId;
}

describe('JSONPath bulkheads (e2e)', () => {
  let t: TestApp;
  let teamA: SpaceMember;
  let teamB: SpaceMember;
  let backtrackingMemId: string;
  let cubicMemId: string;
  let teamAMemId: string;

  beforeAll(async () => {
    // The defaults but a longer queue wait: team A's call below waits for one running
    // evaluation (at most ~1 s), so the check does not hang on the machine's load.
    t = await createTestApp({ JSON_PATH_QUEUE_WAIT_MS: '5000' });
    teamA = await memberOfNewSpace(t);
    teamB = await memberOfNewSpace(t);
    backtrackingMemId = await recordOne(t, teamB, { items: Array.from({ length: 200 }, () => ({ a: 'a'.repeat(40) })) });
    cubicMemId = await recordOne(t, teamB, { items: Array.from({ length: 300 }, (_, v) => ({ v })) });
    teamAMemId = await recordOne(t, teamA, { items: [{ a: 'ab' }, { a: 'b' }] });
  });
  afterAll(() => t?.close());

  /** Resolves once a library thread is busy while `pending` is unsettled, reading /metrics one request after another. */
  async function poolBusyDuring(pending: Promise<unknown>): Promise<void> {
    let settled = false;
    void pending.finally(() => (settled = true)).catch(() => undefined);
    for (let read = 0; read < 2_000 && !settled; read++) {
      if ((await metricValue(t, 'json_path_pool_busy_threads')) > 0) return;
    }
    throw new Error(settled ? 'the flood was answered before a library thread was seen busy' : 'the library pool never got busy');
  }

  it("R-TN-10 while team B's over-budget calls hold the library's threads, team A's { me } and its own library call are answered before the flood is, and every flood call answers a bracketed text", async () => {
    const flood = (memId: string, path: string) =>
      Array.from({ length: CONCURRENT_REQUESTS }, () =>
        gql<Record<string, string>>(t, aliased(ALIASES), { m: memId, p: path }, teamB.token),
      );
    // The backtracking flood, then the over-budget one (together, the quick calls would take all of
    // team B's share and the slow ones would only be turned away).
    const backtracking = await Promise.all(flood(backtrackingMemId, BACKTRACKING));
    const order: string[] = [];
    const cubic = Promise.all(flood(cubicMemId, CUBIC)).then((answers) => (order.push('team B flood'), answers));
    // Team A comes once the slow calls hold the threads, seen on /metrics (each read a request, no sleep).
    await poolBusyDuring(cubic);
    const teamAPath = gql<{ r: string }>(
      t,
      `query($m: String!) { r: recallToolResult(memId: $m, jsonPath: "$.items[?match(@.a, 'a.*')].a") }`,
      { m: teamAMemId },
      teamA.token,
    ).then((answer) => (order.push('team A path'), answer));
    for (let i = 0; i < 5; i++) {
      const me = await gql<{ me: { userId: string } }>(t, '{ me { userId } }', {}, teamA.token);
      expect(me.data?.me.userId).toBe(teamA.userId);
      order.push('team A me');
    }
    const teamAAnswer = await teamAPath;
    const responses = [...backtracking, ...(await cubic)];
    // The order, not a latency: team A's calls did not wait for the flood (the figures are bench:neighbours').
    expect(order).toHaveLength(7);
    expect(order.at(-1)).toBe('team B flood');

    const answers = responses.flatMap((response) => {
      expect(response.status).toBe(200);
      expect(response.errors).toBeUndefined();
      return Object.values(response.data ?? {});
    });
    expect(answers).toHaveLength(2 * CONCURRENT_REQUESTS * ALIASES);
    for (const answer of answers) expect(answer).toMatch(/^\[/);
    const cubicAnswers = answers.slice(CONCURRENT_REQUESTS * ALIASES);
    // Every over-budget call was stopped or turned away; none ran to the end.
    for (const answer of cubicAnswers)
      expect(answer === BUSY ? answer : answer.replace(TIMED_OUT, 'timed out: ')).toMatch(
        /^(timed out: |\[tool_memory json_path not evaluated: the service is busy)/,
      );
    expect(cubicAnswers.some((answer) => TIMED_OUT.test(answer))).toBe(true);
    // RE2 answers the backtracking pattern: nothing matches (no b); the rest were turned away.
    const backtrackingAnswers = answers.slice(0, CONCURRENT_REQUESTS * ALIASES);
    for (const answer of backtrackingAnswers) expect(['[]', BUSY]).toContain(answer);
    expect(backtrackingAnswers).toContain('[]');
    // Team A's own library call got a thread within its share, not the busy answer.
    expect(teamAAnswer.data?.r).toBe('["ab"]');
  });

  it('R-TN-10 one request starts at most 8 library evaluations; the rest answer with the limit and how to proceed', async () => {
    const response = await gql<Record<string, string>>(
      t,
      aliased(ALIASES + 2),
      { m: teamAMemId, p: "$.items[?match(@.a, 'b')].a" },
      teamA.token,
    );
    const answers = Object.values(response.data ?? {});
    expect(answers.filter((answer) => answer === '["b"]')).toHaveLength(ALIASES);
    const refused = answers.filter((answer) => answer !== '["b"]');
    expect(refused).toHaveLength(2);
    for (const answer of refused) {
      expect(answer).toMatch(
        /^\[tool_memory json_path not evaluated: one request may start 8 JSONPath evaluations .*\(JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST\).*send the rest in another request/,
      );
    }
  });

  it('R-TN-10 an MCP JSON-RPC batch (protocol 2025-03-26, which keeps batches) counts as one request: 8 evaluations, then the limit', async () => {
    const mcpUrl = await listenForMcp(t);
    const calls = Array.from({ length: ALIASES + 2 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'recall_tool_result', arguments: { mem_id: teamAMemId, json_path: "$.items[?match(@.a, 'b')].a" } },
    }));
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${teamA.token}`,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(calls),
    });
    expect(response.status).toBe(200);
    const results = (await response.json()) as { result: { content: { text: string }[] } }[];
    const texts = results.map((result) => result.result.content[0].text);
    expect(texts.filter((text) => text === '["b"]')).toHaveLength(ALIASES);
    expect(texts.filter((text) => text.includes('(JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST)'))).toHaveLength(2);
  });

  it('R-TN-10 the pool reports its threads, queue and outcomes as metrics, with no team in the labels', async () => {
    const metrics = await (await import('supertest')).default(t.app.getHttpServer()).get('/metrics');
    expect(metrics.text).toMatch(/^json_path_pool_busy_threads \d+$/m);
    expect(metrics.text).toMatch(/^json_path_pool_queue_length \d+$/m);
    expect(metrics.text).toMatch(/^json_path_library_evaluations_total\{outcome="timed_out"\} [1-9]/m);
    expect(metrics.text).toMatch(/^json_path_library_evaluations_total\{outcome="over_request_budget"\} 4$/m);
    expect(metrics.text).not.toContain(teamB.teamId);
  });
});
