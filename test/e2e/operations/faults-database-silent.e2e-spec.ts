/*
 * docs/requirements.md §8, R-OP-6 (database faults) and R-TN-10: a database that falls silent. The
 * service reaches PostgreSQL through a TCP proxy that the test black-holes — nothing forwarded,
 * nothing reset or closed, as a cloud network's partition does — so PostgreSQL's own
 * statement_timeout cannot fire. The deadlines the service keeps itself must end every request,
 * with a code a client can act on, and free what the requests held. The timeouts are short here
 * (DB_STATEMENT_TIMEOUT_MS 1 s, so a 2 s read timeout and 2.5 s of database time per request); the silence
 * lasts until every request was answered.
 */
import { memberOfNewSpace, RECORD, type SpaceMember, toolResult, type ToolResultInputShape } from '../../support/fixtures';
import { type GraphqlResponse, ok } from '../../support/graphql';
import { type BlackHoleProxy, startBlackHoleProxy } from '../../support/black-hole-proxy';
import { listenForMcp } from '../mcp/support/mcp';
import { createTestApp, type TestApp } from '../../support/test-app';

const ME = '{ me { userId } }';
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
/** Requests the replica serves at once: the held ones take them all. */
const IN_FLIGHT = 4;

let t: TestApp;
let proxy: BlackHoleProxy;
let base: URL;

beforeAll(async () => {
  t = await createTestApp(
    {
      DB_STATEMENT_TIMEOUT_MS: '1000',
      DB_CONNECT_TIMEOUT_MS: '1000',
      DB_POOL_MAX: '6',
      TEAM_MAX_DB_CONNECTIONS: '3',
      MAX_IN_FLIGHT: String(IN_FLIGHT),
      MAX_IN_FLIGHT_ALONE: String(IN_FLIGHT),
      // Had the held requests kept their turns, the next ones would be refused RATE_LIMITED, not wait on.
      ADMISSION_QUEUE_WAIT_MS: '1000',
    },
    {
      connect: async (url) => {
        proxy = await startBlackHoleProxy(url);
        return proxy.url;
      },
    },
  );
  // A listening server: the requests go over real sockets, and the answers' headers are read as a client reads them.
  base = await listenForMcp(t);
});

afterAll(async () => {
  proxy?.resume();
  await t?.close();
});

function post(path: string, token: string, body: unknown): Promise<Response> {
  return fetch(new URL(path, base), {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

/** A GraphQL request as any HTTP client sends it: the status, `Retry-After` and the body. */
async function graphql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await post('/graphql', token, { query, variables });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as GraphqlResponse };
}

function expectUnavailable(answer: Awaited<ReturnType<typeof graphql>>): void {
  expect(answer).toEqual({
    status: 503,
    retryAfter: '1',
    body: {
      data: null,
      errors: [
        expect.objectContaining({
          message: expect.stringMatching(/^The database did not answer in time; retry after 1 s\./),
          extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 },
        }),
      ],
    },
  });
}

async function storedOf(batch: readonly ToolResultInputShape[]): Promise<number> {
  const { rows } = await t.sql.query<{ n: number }>('select count(*)::int as n from message_tool_results where tool_use_id = any($1)', [
    batch.map((item) => item.toolUseId),
  ]);
  return rows[0].n;
}

describe('R-OP-6 a silent database (black-holed network)', () => {
  let member: SpaceMember;

  beforeAll(async () => {
    member = await memberOfNewSpace(t);
    // Connections open and in use before the silence.
    await ok(t, RECORD, { input: [toolResult(member.spaceId, crypto.randomUUID())] }, member.token);
  });

  it('R-OP-6 R-TN-10 every request ends with SERVICE_UNAVAILABLE while it lasts, its team starts more work, nothing is half-written, and service resumes with the network', async () => {
    const conversationId = crypto.randomUUID();
    const batches = [1, 2].map(() => [1, 2, 3].map(() => toolResult(member.spaceId, conversationId)));

    proxy.blackHole();
    // Every turn of the replica, each request held by the silence.
    const held = await Promise.all([
      ...batches.map((batch) => graphql(member.token, RECORD, { input: batch })),
      graphql(member.token, ME),
      graphql(member.token, ME),
    ]);
    expect(held).toHaveLength(IN_FLIGHT);
    for (const answer of held) expectUnavailable(answer);

    // Their turns came back: the team's next requests are admitted (not RATE_LIMITED) and answered alike.
    for (const answer of await Promise.all([1, 2, 3, 4].map(() => graphql(member.token, ME)))) expectUnavailable(answer);

    // MCP: a JSON-RPC error with the code in `data.code`.
    const mcp = await post('/mcp', member.token, TOOLS_LIST);
    expect({ status: mcp.status, retryAfter: mcp.headers.get('retry-after'), body: await mcp.json() }).toEqual({
      status: 503,
      retryAfter: '1',
      body: {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32053,
          message: expect.stringMatching(/^The database did not answer in time/),
          data: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 },
        },
      },
    });
    expect((await fetch(new URL('/health/ready', base))).status).toBe(503);

    // Every connection the silence caught with something unanswered (a statement, a login) is
    // closed by the service, before the network returns: none is handed out again.
    const silenced = proxy.connections.filter((connection) => connection.heldFromService > 0);
    expect(silenced.length).toBeGreaterThan(0);
    await Promise.all(silenced.map((connection) => proxy.closedByService(connection)));
    expect(silenced.every((connection) => connection.closedByServiceInHole)).toBe(true);

    proxy.resume();
    // What the silence held reaches the server now (as TCP would retransmit it): a write sent before the
    // service gave up may still be carried out. Either way a batch is there in full or not at all.
    await proxy.serverCaughtUp();
    for (const batch of batches) expect([0, batch.length]).toContain(await storedOf(batch));

    // The first requests after the return are served: the retried batches are whole, once each.
    for (const batch of batches) {
      const retried = await ok<{ recordToolResults: { createdCount: number; duplicateCount: number } }>(
        t,
        RECORD,
        { input: batch },
        member.token,
      );
      expect(retried.recordToolResults.createdCount + retried.recordToolResults.duplicateCount).toBe(batch.length);
      expect(await storedOf(batch)).toBe(batch.length);
    }
    expect(await ok(t, ME, {}, member.token)).toEqual({ me: { userId: member.userId } });
    expect((await post('/mcp', member.token, TOOLS_LIST)).status).toBe(200);
    expect((await fetch(new URL('/health/ready', base))).status).toBe(200);
    // And nothing the silence caught came back into use.
    expect(silenced.every((connection) => connection.closedByService)).toBe(true);
  });

  it('R-OP-6 inside an MCP tool call, the tool error SERVICE_UNAVAILABLE (the SDK makes any error a tool throws a tool result)', async () => {
    // The actor and the tool list are read; the tool's own statement reaches the server, its answer does not.
    proxy.blackHoleAfter('cross join lateral (select c.space_id from conversations c');
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'recall_prior_tool_result', arguments: {} } };
    const answer = await post('/mcp', member.token, call);
    proxy.resume();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        isError: true,
        content: [
          { type: 'text', text: expect.stringMatching(/^SERVICE_UNAVAILABLE: The database did not answer in time; retry after 1 s\./) },
        ],
      },
    });
    expect((await post('/mcp', member.token, call)).status).toBe(200);
  });
});
