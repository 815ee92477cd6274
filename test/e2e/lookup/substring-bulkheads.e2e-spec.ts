/**
 * R-TN-10: the substring lookup (`query`) of a large payload runs in linear time in the lookup
 * pool's worker threads. The bomb — a 2,000,000-character output and a 1,000-character
 * query that a backtracking engine retries at every offset — sent by team B through 15 GraphQL
 * aliases or a 20-call JSON-RPC batch (no MCP-Protocol-Version header) is answered within its caps,
 * a bracketed text per call; team A's requests, sent while B's searches run, are answered first.
 */
import request from 'supertest';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { gql, ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';
import { listenForMcp } from '../mcp/support/mcp';

const BOMB_QUERY = `${'a'.repeat(50)}b${'a'.repeat(949)}`;
const BOMB_CHARS = 2_000_000;
const ALIASES = 15;
const BATCH = 20;
/** JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST's default: tasks one request may start in the pool. */
const PER_REQUEST = 8;

const NO_MATCH = /^\[tool_memory no match for "a{50}ba{28}…" in mem_[a-z2-7]{16}\]$/;
const OVER_COUNT = /^\[tool_memory query not searched: one request may start 8 searches .*\(JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST\)/;

async function recordOne(t: TestApp, member: SpaceMember, toolOutput: unknown): Promise<string> {
  const input = [toolResult(member.spaceId, crypto.randomUUID(), { toolName: 'read_file', toolOutput })];
  const recorded = await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(t, RECORD, { input }, member.token);
  return recorded.recordToolResults.snapshots[0].memId;
}

describe('Substring lookup bulkheads (e2e)', () => {
  let t: TestApp;
  let teamA: SpaceMember;
  let teamB: SpaceMember;
  let bombMemId: string;
  let teamAMemId: string;

  beforeAll(async () => {
    // A longer queue wait than the default: team B's eight searches wait for one thread in turn,
    // and a busy machine must not turn that into "busy" answers (which would also be bracketed).
    t = await createTestApp({ JSON_PATH_QUEUE_WAIT_MS: '20000' });
    teamA = await memberOfNewSpace(t);
    teamB = await memberOfNewSpace(t);
    bombMemId = await recordOne(t, teamB, 'a'.repeat(BOMB_CHARS));
    teamAMemId = await recordOne(t, teamA, 'Deploy finished: 3 services restarted, STATUS ok');
    // Recording 2,000,000 characters and the worker thread's first start are slow on a loaded machine.
  }, 120_000);
  afterAll(() => t?.close());

  /** Substring searches the pool has finished so far, from /metrics. */
  async function searchesDone(): Promise<number> {
    const metrics = await request(t.app.getHttpServer()).get('/metrics');
    return Number(/^substring_searches_total\{outcome="ok"\} (\d+)$/m.exec(metrics.text)?.[1] ?? 0);
  }

  /**
   * Sends `bomb`; once the pool has finished one of its searches (so the bomb is being served),
   * sends team A's `{ me }` and a query lookup of its own; answers each, and the order they came in.
   */
  async function teamAWhileBombing<B>(bomb: () => Promise<B>): Promise<{ order: string[]; bomb: B; me: unknown; lookup: unknown }> {
    const order: string[] = [];
    const before = await searchesDone();
    let bombDone = false;
    const bombing = bomb().then((answer) => {
      bombDone = true;
      order.push('team B bomb');
      return answer;
    });
    while (!bombDone && (await searchesDone()) === before);
    const me = gql<{ me: { userId: string } }>(t, '{ me { userId } }', {}, teamA.token).then((answer) => {
      order.push('team A me');
      return answer.data?.me.userId;
    });
    const lookup = gql<{ r: string }>(
      t,
      'query($m: String!) { r: recallToolResult(memId: $m, query: "status") }',
      { m: teamAMemId },
      teamA.token,
    ).then((answer) => {
      order.push('team A lookup');
      return answer.data?.r;
    });
    return { order, bomb: await bombing, me: await me, lookup: await lookup };
  }

  function expectTeamAServed(outcome: { order: string[]; me: unknown; lookup: unknown }): void {
    expect(outcome.me).toBe(teamA.userId);
    expect(outcome.lookup).toBe('[match 1 of 1 at offset 39]\nDeploy finished: 3 services restarted, STATUS ok');
    expect(outcome.order.slice(0, 2).sort()).toEqual(['team A lookup', 'team A me']);
    expect(outcome.order[2]).toBe('team B bomb');
  }

  it("R-TN-10 the issue's bomb in 15 GraphQL aliases: 8 searched in the pool with no match, 7 refused by the per-request count; team A is answered first", async () => {
    const fields = Array.from({ length: ALIASES }, (_, index) => `r${index}: recallToolResult(memId: $m, query: $q)`);
    const outcome = await teamAWhileBombing(() =>
      gql<Record<string, string>>(
        t,
        `query($m: String!, $q: String) { ${fields.join(' ')} }`,
        { m: bombMemId, q: BOMB_QUERY },
        teamB.token,
      ),
    );
    expectTeamAServed(outcome);
    expect(outcome.bomb.status).toBe(200);
    expect(outcome.bomb.errors).toBeUndefined();
    const answers = Object.values(outcome.bomb.data ?? {});
    expect(answers).toHaveLength(ALIASES);
    expect(answers.filter((answer) => NO_MATCH.test(answer))).toHaveLength(PER_REQUEST);
    expect(answers.filter((answer) => OVER_COUNT.test(answer))).toHaveLength(ALIASES - PER_REQUEST);
  }, 120_000);

  it('R-TN-10 the same bomb as a JSON-RPC batch of 20 without MCP-Protocol-Version: every call a bracketed text; team A is answered first', async () => {
    const mcpUrl = await listenForMcp(t);
    const calls = Array.from({ length: BATCH }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'recall_tool_result', arguments: { mem_id: bombMemId, query: BOMB_QUERY } },
    }));
    const outcome = await teamAWhileBombing(async () => {
      const response = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${teamB.token}`,
        },
        body: JSON.stringify(calls),
      });
      return { status: response.status, body: (await response.json()) as { result: { isError?: boolean; content: { text: string }[] } }[] };
    });
    expectTeamAServed(outcome);
    expect(outcome.bomb.status).toBe(200);
    const texts = outcome.bomb.body.map((message) => {
      expect(message.result.isError).toBeFalsy();
      return message.result.content[0].text;
    });
    expect(texts).toHaveLength(BATCH);
    expect(texts.filter((text) => NO_MATCH.test(text))).toHaveLength(PER_REQUEST);
    expect(texts.filter((text) => OVER_COUNT.test(text))).toHaveLength(BATCH - PER_REQUEST);
  }, 120_000);

  it('R-TN-10 the pool counts substring searches by outcome, with no team in the labels', async () => {
    const metrics = await request(t.app.getHttpServer()).get('/metrics');
    expect(metrics.text).toMatch(new RegExp(`^substring_searches_total\\{outcome="ok"\\} ${2 * PER_REQUEST}$`, 'm'));
    expect(metrics.text).toMatch(
      new RegExp(`^substring_searches_total\\{outcome="over_request_budget"\\} ${ALIASES + BATCH - 2 * PER_REQUEST}$`, 'm'),
    );
    expect(metrics.text).not.toContain(teamB.teamId);
  });
});
