/**
 * R-TN-10 fairness between teams on one replica: a team with TEAM_MAX_IN_FLIGHT requests in flight
 * gets RATE_LIMITED (HTTP 429, Retry-After) in GraphQL's and JSON-RPC's own shapes, while another
 * team is served; once its requests finish it is admitted again.
 *
 * Team B's two requests are held in flight by a real wait, not a hook: the test holds a row lock on
 * B's conversation (as a concurrent writer would), so B's recordToolResults wait for it inside the
 * database until the test commits. pg_stat_activity shows when both are waiting. The same hold
 * shows the per-team share of the connection pool (TEAM_MAX_DB_CONNECTIONS) at work in the service.
 */
import type { PoolClient } from 'pg';
import { RECORD, toolResult } from '../../support/fixtures';
import { gql, ok } from '../../support/graphql';
import { newMember, newSpace } from '../../support/tenancy';
import { listenForMcp } from '../mcp/support/mcp';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';
import { settled } from '../../support/promises';

const ME = '{ me { userId } }';
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

let t: TestApp;
let mcpUrl: URL;

beforeAll(async () => {
  t = await createTestApp({ TEAM_MAX_IN_FLIGHT: '2', RATE_LIMIT_RETRY_AFTER_SECONDS: '3' });
  // A listening server: the held requests and the others go over real sockets at the same time.
  mcpUrl = await listenForMcp(t);
});

afterAll(() => t?.close());

interface Team {
  member: TestIdentity;
  spaceId: string;
}

async function newTeam(app: TestApp = t): Promise<Team> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(app, admin, 'fairness');
  return { member: await newMember(app, admin, [spaceId], ['memory:read', 'memory:write']), spaceId };
}

function postMcp(token: string, body: unknown): Promise<Response> {
  return fetch(mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
}

/** Backends of the test database waiting for a lock: the held requests, once they are inside. */
async function lockWaiters(app: TestApp = t): Promise<number> {
  const { rows } = await app.sql.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return rows[0].n;
}

async function untilLockWaiters(n: number, app: TestApp = t): Promise<void> {
  while ((await lockWaiters(app)) < n) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('R-TN-10 per-team in-flight limit (TEAM_MAX_IN_FLIGHT=2)', () => {
  it('R-TN-10 a team over its limit gets 429 with Retry-After in GraphQL and JSON-RPC shape while another team is served; admitted again after', async () => {
    const teamA = await newTeam();
    const teamB = await newTeam();
    const conversationId = crypto.randomUUID();
    await ok(t, RECORD, { input: [toolResult(teamB.spaceId, conversationId)] }, teamB.member.token);

    // A concurrent writer holds team B's conversation: B's next writes to it wait in the database.
    const writer: PoolClient = await t.sql.connect();
    let held: Promise<unknown>[] = [];
    try {
      await writer.query('begin');
      await writer.query('select 1 from conversations where team_id = $1 and id = $2 for update', [teamB.member.teamId, conversationId]);
      held = [1, 2].map(() => gql(t, RECORD, { input: [toolResult(teamB.spaceId, conversationId)] }, teamB.member.token));
      await untilLockWaiters(2);

      const refused = await gql(t, ME, {}, teamB.member.token);
      expect(refused.status).toBe(429);
      expect(refused.data ?? null).toBeNull();
      expect(refused.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/2 requests in flight.*TEAM_MAX_IN_FLIGHT.*retry after 3 s/),
          extensions: { code: 'RATE_LIMITED', limit: 'TEAM_MAX_IN_FLIGHT', retryAfterSeconds: 3 },
        }),
      ]);

      // The same through the HTTP response itself, as any client library sees it.
      const raw = await fetch(new URL('/graphql', mcpUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${teamB.member.token}` },
        body: JSON.stringify({ query: ME }),
      });
      expect(raw.status).toBe(429);
      expect(raw.headers.get('retry-after')).toBe('3');

      const refusedMcp = await postMcp(teamB.member.token, TOOLS_LIST);
      expect(refusedMcp.status).toBe(429);
      expect(refusedMcp.headers.get('retry-after')).toBe('3');
      expect(await refusedMcp.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32029,
          message: expect.stringMatching(/TEAM_MAX_IN_FLIGHT/),
          data: { code: 'RATE_LIMITED', retryAfterSeconds: 3 },
        },
      });

      // Team A is not held up by B's share: GraphQL and MCP answer, up to A's own two at once.
      const answers = await Promise.all([1, 2].map(() => ok<{ me: { userId: string } }>(t, ME, {}, teamA.member.token)));
      expect(answers.map((a) => a.me.userId)).toEqual([teamA.member.userId, teamA.member.userId]);
      const listed = await postMcp(teamA.member.token, TOOLS_LIST);
      expect(listed.status).toBe(200);
      expect(await lockWaiters()).toBe(2);

      // Refusals are counted per edge, with no team in the labels.
      const metrics = await (await fetch(new URL('/metrics', mcpUrl))).text();
      expect(metrics).toMatch(/^rate_limited_total\{edge="graphql"\} [1-9]/m);
      expect(metrics).toMatch(/^rate_limited_total\{edge="mcp"\} [1-9]/m);
      expect(metrics).not.toMatch(/rate_limited_total\{[^}]*team/);

      await writer.query('commit');
    } finally {
      await writer.query('rollback').catch(() => undefined);
      writer.release();
    }

    // B's held writes went through; with them done, B is admitted again.
    for (const answer of await Promise.all(held))
      expect(answer).toMatchObject({ status: 200, data: { recordToolResults: { createdCount: 1 } } });
    expect((await ok<{ me: { userId: string } }>(t, ME, {}, teamB.member.token)).me.userId).toBe(teamB.member.userId);
    expect((await postMcp(teamB.member.token, TOOLS_LIST)).status).toBe(200);
  });

  it('R-TN-10 the aliases of one document count once: one request of many operations is admitted under a limit of 2', async () => {
    const { member } = await newTeam();
    const aliases = `{ ${[1, 2, 3, 4, 5].map((n) => `m${n}: me { userId }`).join(' ')} }`;
    const answer = await gql<Record<string, { userId: string }>>(t, aliases, {}, member.token);
    expect(answer.errors).toBeUndefined();
    expect(Object.keys(answer.data ?? {})).toHaveLength(5);
  });
});

describe('R-TN-10 per-team share of the connection pool in the running service (TEAM_MAX_DB_CONNECTIONS=1)', () => {
  it('R-TN-10 a team holding its one connection waits for it while another team is served; then it goes on', async () => {
    const app = await createTestApp({ TEAM_MAX_DB_CONNECTIONS: '1' });
    try {
      const teamA = await newTeam(app);
      const teamB = await newTeam(app);
      const conversationId = crypto.randomUUID();
      await ok(app, RECORD, { input: [toolResult(teamB.spaceId, conversationId)] }, teamB.member.token);

      const writer: PoolClient = await app.sql.connect();
      try {
        await writer.query('begin');
        await writer.query('select 1 from conversations where team_id = $1 and id = $2 for update', [teamB.member.teamId, conversationId]);
        // B's write holds B's only connection while it waits for the lock.
        const heldWrite = gql(app, RECORD, { input: [toolResult(teamB.spaceId, conversationId)] }, teamB.member.token);
        await untilLockWaiters(1, app);
        // B's next request is admitted but waits for B's connection (its actor lookup is SQL) ...
        const waitingMe = gql<{ me: { userId: string } }>(app, ME, {}, teamB.member.token);
        // ... while A, on the same pool, is served.
        expect((await ok<{ me: { userId: string } }>(app, ME, {}, teamA.member.token)).me.userId).toBe(teamA.member.userId);
        expect(await settled(waitingMe)).toBe(false);
        expect(await lockWaiters(app)).toBe(1);

        await writer.query('commit');
        expect(await heldWrite).toMatchObject({ status: 200, data: { recordToolResults: { createdCount: 1 } } });
        expect(await waitingMe).toMatchObject({ status: 200, data: { me: { userId: teamB.member.userId } } });
      } finally {
        await writer.query('rollback').catch(() => undefined);
        writer.release();
      }
    } finally {
      await app.close();
    }
  });
});
