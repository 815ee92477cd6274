/**
 * R-TN-11 fair, work-conserving admission on one replica (MAX_IN_FLIGHT=2, alone too): a team alone is served
 * on every turn and its further requests wait instead of being refused; a freed turn goes to the
 * waiting team with the fewest in flight, so a team that asked later is not served after the
 * flood; only a team past its share of the queue, or a wait past its bound, gets RATE_LIMITED
 * (HTTP 429, Retry-After) in GraphQL's and JSON-RPC's own shapes.
 *
 * Team B's requests are held in flight by a real wait, not a hook: the test holds row locks on B's
 * conversations (as a concurrent writer would), so B's recordToolResults wait for them inside the
 * database until the test commits. pg_stat_activity shows when they are waiting; the admission
 * gauges show who waits for a turn. The same hold shows the per-team share of the connection pool
 * (TEAM_MAX_DB_CONNECTIONS) at work in the service.
 */
import type { PoolClient } from 'pg';
import { RECORD, toolResult } from '../../support/fixtures';
import { gql, ok } from '../../support/graphql';
import { newMember, newSpace } from '../../support/tenancy';
import { listenForMcp } from '../mcp/support/mcp';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const ME = '{ me { userId } }';
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

interface Team {
  member: TestIdentity;
  spaceId: string;
}

async function newTeam(app: TestApp): Promise<Team> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(app, admin, 'fairness');
  return { member: await newMember(app, admin, [spaceId], ['memory:read', 'memory:write']), spaceId };
}

function postMcp(url: URL, token: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
}

/** Backends of the test database waiting for a lock: the held requests, once they are inside. */
async function lockWaiters(app: TestApp): Promise<number> {
  const { rows } = await app.sql.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return rows[0].n;
}

async function untilLockWaiters(n: number, app: TestApp): Promise<void> {
  // A poll of pg_stat_activity: the pause is between reads, the state read is what the test waits for.
  while ((await lockWaiters(app)) < n) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A gauge of the service's /metrics, for the ordinary lane of admission. */
async function gauge(url: URL, name: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  return Number(new RegExp(`^${name}\\{lane="ordinary"\\} (\\d+)$`, 'm').exec(text)?.[1]);
}

async function untilGauge(url: URL, name: string, value: number): Promise<void> {
  // A poll of the gauge: the pause is between reads, the state read is what the test waits for.
  while ((await gauge(url, name)) !== value) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Team B's writes, each into its own conversation, each held by a concurrent writer's row lock
 * until `commit(i)`: B's requests stay in flight, each holding one of the replica's turns.
 */
async function heldWrites(app: TestApp, team: Team, count: number) {
  const conversations = Array.from({ length: count }, () => crypto.randomUUID());
  for (const c of conversations) await ok(app, RECORD, { input: [toolResult(team.spaceId, c)] }, team.member.token);
  const writers: PoolClient[] = [];
  for (const c of conversations) {
    const writer = await app.sql.connect();
    writers.push(writer);
    await writer.query('begin');
    await writer.query('select 1 from conversations where team_id = $1 and id = $2 for update', [team.member.teamId, c]);
  }
  const before = await lockWaiters(app);
  const writes = conversations.map((c) => gql(app, RECORD, { input: [toolResult(team.spaceId, c)] }, team.member.token));
  await untilLockWaiters(before + count, app);
  return {
    writes,
    commit: (i: number) => writers[i].query('commit'),
    release: async () => {
      for (const writer of writers) {
        await writer.query('rollback').catch(() => undefined);
        writer.release();
      }
    },
  };
}

describe('R-TN-11 fair, work-conserving admission (MAX_IN_FLIGHT=2)', () => {
  let t: TestApp;
  let url: URL;
  beforeAll(async () => {
    t = await createTestApp({ MAX_IN_FLIGHT: '2', MAX_IN_FLIGHT_ALONE: '2', ADMISSION_QUEUE_MAX: '8', ADMISSION_QUEUE_WAIT_MS: '60000' });
    // A listening server: the held requests and the others go over real sockets at the same time.
    url = await listenForMcp(t);
  });
  afterAll(() => t?.close());

  it("R-TN-11 a team alone uses every turn and waits for more instead of being refused; a team that asks later gets the next turn before the flood's", async () => {
    const teamA = await newTeam(t);
    const teamB = await newTeam(t);
    const held = await heldWrites(t, teamB, 2);
    try {
      const order: string[] = [];
      // Team B alone holds both turns: its third request waits for one, over GraphQL and over MCP alike.
      const b3 = gql(t, ME, {}, teamB.member.token).then((answer) => (order.push('b3'), answer));
      await untilGauge(url, 'admission_queue_length', 1);
      const bMcp = postMcp(url, teamB.member.token, TOOLS_LIST).then((answer) => (order.push('bMcp'), answer));
      await untilGauge(url, 'admission_queue_length', 2);
      // Team A asks last, while B's two requests wait ahead of it.
      const a = gql(t, ME, {}, teamA.member.token).then((answer) => (order.push('a'), answer));
      // Three wait for a turn (the gauge): b3, bMcp and a.
      await untilGauge(url, 'admission_queue_length', 3);

      // One of B's writes ends: its turn goes to team A, which has none in flight, not to B's next.
      await held.commit(0);
      expect(await a).toMatchObject({ status: 200, data: { me: { userId: teamA.member.userId } } });
      // B's other write still holds a turn, so B's waiting requests could start only once A's closed.
      expect(order[0]).toBe('a');
      await held.commit(1);
      expect(await b3).toMatchObject({ status: 200, data: { me: { userId: teamB.member.userId } } });
      expect((await bMcp).status).toBe(200);
      for (const write of await Promise.all(held.writes))
        expect(write).toMatchObject({ status: 200, data: { recordToolResults: { createdCount: 1 } } });
      // Nobody was refused.
      const metrics = await (await fetch(new URL('/metrics', url))).text();
      expect(metrics).not.toMatch(/^rate_limited_total\{[^}]*\} [1-9]/m);
    } finally {
      await held.release();
    }
  });

  it('R-TN-10 the aliases of one document count once: one request of many operations takes one turn', async () => {
    const { member } = await newTeam(t);
    const aliases = `{ ${[1, 2, 3, 4, 5].map((n) => `m${n}: me { userId }`).join(' ')} }`;
    const answer = await gql<Record<string, { userId: string }>>(t, aliases, {}, member.token);
    expect(answer.errors).toBeUndefined();
    expect(Object.keys(answer.data ?? {})).toHaveLength(5);
  });
});

describe('R-TN-11 RATE_LIMITED only past the queue: a team past its share of it, or a wait past its bound', () => {
  it('R-TN-11 429 with Retry-After in GraphQL and JSON-RPC shape, naming ADMISSION_QUEUE_MAX or ADMISSION_QUEUE_WAIT_MS; admitted again after', async () => {
    // Two turns; a queue of 2, of which one team may hold 1 waiting request; a wait of at most 1.5 s.
    const app = await createTestApp({
      MAX_IN_FLIGHT: '2',
      MAX_IN_FLIGHT_ALONE: '2',
      ADMISSION_QUEUE_MAX: '2',
      ADMISSION_QUEUE_WAIT_MS: '1500',
      RATE_LIMIT_RETRY_AFTER_SECONDS: '3',
    });
    const url = await listenForMcp(app);
    try {
      const teamB = await newTeam(app);
      const held = await heldWrites(app, teamB, 2);
      try {
        const waiting = gql(app, ME, {}, teamB.member.token);
        await untilGauge(url, 'admission_queue_length', 1);

        // No room left for B to wait: refused at once, in both protocols.
        const refused = await gql(app, ME, {}, teamB.member.token);
        expect(refused.status).toBe(429);
        expect(refused.data ?? null).toBeNull();
        expect(refused.errors).toEqual([
          expect.objectContaining({
            message: expect.stringMatching(/ADMISSION_QUEUE_MAX.*retry after 3 s\.$/),
            extensions: { code: 'RATE_LIMITED', limit: 'ADMISSION_QUEUE_MAX', retryAfterSeconds: 3 },
          }),
        ]);
        const raw = await fetch(new URL('/graphql', url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${teamB.member.token}` },
          body: JSON.stringify({ query: ME }),
        });
        expect(raw.status).toBe(429);
        expect(raw.headers.get('retry-after')).toBe('3');
        const refusedMcp = await postMcp(url, teamB.member.token, TOOLS_LIST);
        expect(refusedMcp.status).toBe(429);
        expect(refusedMcp.headers.get('retry-after')).toBe('3');
        expect(await refusedMcp.json()).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32029,
            message: expect.stringMatching(/ADMISSION_QUEUE_MAX/),
            data: { code: 'RATE_LIMITED', retryAfterSeconds: 3 },
          },
        });

        // The request that waited is refused once its wait passes the bound; both writes still hold the turns.
        const late = await waiting;
        expect(late.status).toBe(429);
        expect(late.errors?.[0]).toMatchObject({
          extensions: { code: 'RATE_LIMITED', limit: 'ADMISSION_QUEUE_WAIT_MS', retryAfterSeconds: 3 },
        });
        expect(await lockWaiters(app)).toBe(2);

        // Refusals are counted per edge, with no team in the labels.
        const metrics = await (await fetch(new URL('/metrics', url))).text();
        expect(metrics).toMatch(/^rate_limited_total\{edge="graphql"\} [1-9]/m);
        expect(metrics).toMatch(/^rate_limited_total\{edge="mcp"\} [1-9]/m);
        expect(metrics).not.toMatch(/rate_limited_total\{[^}]*team/);

        await held.commit(0);
        await held.commit(1);
        for (const write of await Promise.all(held.writes)) expect(write).toMatchObject({ status: 200 });
      } finally {
        await held.release();
      }
      // With its writes done, B is admitted again.
      expect((await ok<{ me: { userId: string } }>(app, ME, {}, teamB.member.token)).me.userId).toBe(teamB.member.userId);
      expect((await postMcp(url, teamB.member.token, TOOLS_LIST)).status).toBe(200);
    } finally {
      await app.close();
    }
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
        const order: string[] = [];
        // B's next request is admitted but waits for B's connection (its actor lookup is SQL) ...
        const waitingMe = gql<{ me: { userId: string } }>(app, ME, {}, teamB.member.token).then((answer) => (order.push('b'), answer));
        // ... while A, on the same pool, is served.
        expect((await ok<{ me: { userId: string } }>(app, ME, {}, teamA.member.token)).me.userId).toBe(teamA.member.userId);
        order.push('a');
        expect(await lockWaiters(app)).toBe(1);

        order.push('commit');
        await writer.query('commit');
        expect(await heldWrite).toMatchObject({ status: 200, data: { recordToolResults: { createdCount: 1 } } });
        expect(await waitingMe).toMatchObject({ status: 200, data: { me: { userId: teamB.member.userId } } });
        // B's request was answered only once B's connection came back.
        expect(order).toEqual(['a', 'commit', 'b']);
      } finally {
        await writer.query('rollback').catch(() => undefined);
        writer.release();
      }
    } finally {
      await app.close();
    }
  });
});
