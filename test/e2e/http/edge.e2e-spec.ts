/**
 * JSON at every edge of the HTTP API (R-OP-4, R-MCP-1): a body that is not JSON, a path nothing
 * serves, a method a path does not answer and an error nothing caught are answered in JSON — a
 * GraphQL-shaped error with its code, JSON-RPC on /mcp — never Express' HTML page, and never a
 * stack or a file path, in test mode and in production alike. /metrics and the console's page
 * keep their own formats on their GET routes.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createReplica, createTestApp, identity, type Replica, type TestApp } from '../../support/test-app';

/** What must never reach a client: an HTML page, a stack frame, a source path. */
const LEAKS = [/<html/i, / {4}at /, /\/work\//, /node_modules/, /\.ts:/];

function expectJsonError(res: request.Response, status: number): Record<string, unknown> {
  expect({ status: res.status, text: res.text }).toMatchObject({ status });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  for (const leak of LEAKS) expect(res.text).not.toMatch(leak);
  return JSON.parse(res.text) as Record<string, unknown>;
}

/** The house shape (R-OP-4): `{ errors: [{ message, extensions: { code } }] }`. */
function expectHouseError(res: request.Response, status: number, code: string): { message: string; extensions: Record<string, unknown> } {
  const body = expectJsonError(res, status) as { errors: { message: string; extensions: Record<string, unknown> }[] };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0].extensions.code).toBe(code);
  expect(typeof body.errors[0].message).toBe('string');
  return body.errors[0];
}

/** A JSON-RPC 2.0 error with no id, the service's code in `data.code`. */
function expectJsonRpcError(
  res: request.Response,
  status: number,
  rpcCode: number,
  code: string,
): { message: string; data: Record<string, unknown> } {
  const body = expectJsonError(res, status) as {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string; data: Record<string, unknown> };
  };
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: rpcCode, data: { code } } });
  return body.error;
}

/** A built console's shape, enough to serve: a page, a hashed script, and a symlink loop no file read survives. */
function consoleFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'http-edge-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><body><script src="/admin/assets/app-0123abcd.js"></script></body></html>');
  writeFileSync(join(dir, 'assets', 'app-0123abcd.js'), 'console.log("console");');
  symlinkSync('loop', join(dir, 'loop'));
  return dir;
}

const BROKEN_JSON = '{"query": "{ me { userId } }",}';

/** A bearer header: only an authenticated call's body is read at all (R-TN-10), so the parser's answers need one. */
async function bearer(): Promise<string> {
  return `Bearer ${(await identity(['memory:read'])).token}`;
}
const MCP_ACCEPT = 'application/json, text/event-stream';

describe('HTTP edge answers in JSON (e2e)', () => {
  let t: TestApp;
  let development: Replica;
  let consoleDir: string;

  beforeAll(async () => {
    consoleDir = consoleFixture();
    const env = { ADMIN_CONSOLE_DIR: consoleDir, HTTP_BODY_LIMIT: '32kb' };
    t = await createTestApp({ ...env, NODE_ENV: 'production', ALLOW_EMBEDDED_DB: 'true', ALLOWED_HOSTS: '127.0.0.1' });
    development = await createReplica(t, { ...env, NODE_ENV: 'test' });
  }, 120_000);

  afterAll(async () => {
    await development?.close();
    await t?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  const modes = () => [
    ['production', t.app.getHttpServer()],
    ['test', development.app.getHttpServer()],
  ];

  describe.each(['production', 'test'])('NODE_ENV=%s', (mode) => {
    const server = () => modes().find(([name]) => name === mode)![1];

    it('R-OP-4 malformed JSON on /graphql is a 400 GraphQL error, BAD_REQUEST, with the parser message and position', async () => {
      const res = await request(server())
        .post('/graphql')
        .set('content-type', 'application/json')
        .set('authorization', await bearer())
        .send(BROKEN_JSON);
      const error = expectHouseError(res, 400, 'BAD_REQUEST');
      expect(error.message).toBe(
        'The request body is not valid JSON: Expected double-quoted property name in JSON at position 30 (line 1 column 31)',
      );
      expect(error.extensions).not.toHaveProperty('requestId');
    });

    it('R-MCP-1 malformed JSON on /mcp with a valid bearer token is JSON-RPC -32700 Parse error', async () => {
      const req = request(server()).post('/mcp').set('content-type', 'application/json').set('accept', MCP_ACCEPT);
      req.set('authorization', await bearer());
      const error = expectJsonRpcError(await req.send('{"jsonrpc": "2.0", "method": tools/list}'), 400, -32700, 'BAD_REQUEST');
      expect(error.message).toBe(`Parse error: Unexpected token 'o', ..."method": tools/list}" is not valid JSON (at position 29)`);
    });

    it('R-MCP-1 R-TN-10 malformed JSON on /mcp without a token is the 401 challenge: its body is never read', async () => {
      const req = request(server()).post('/mcp').set('content-type', 'application/json').set('accept', MCP_ACCEPT);
      const res = await req.send('{"jsonrpc": "2.0", "method": tools/list}');
      expectJsonRpcError(res, 401, -32001, 'UNAUTHENTICATED');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
    });

    it('R-OP-4 a JSON body that is neither an object nor an array is BAD_REQUEST, saying what is expected', async () => {
      const res = await request(server())
        .post('/graphql')
        .set('content-type', 'application/json')
        .set('authorization', await bearer())
        .send('  "{ me { userId } }"');
      expect(expectHouseError(res, 400, 'BAD_REQUEST').message).toMatch(/at position 2: a JSON object or array is expected\)$/);
    });

    it('R-OP-4 R-TN-10 a path nothing serves is a 404 without its body being read: a broken body there changes nothing', async () => {
      const res = await request(server()).post('/nope').set('content-type', 'application/json').send(BROKEN_JSON);
      expectHouseError(res, 404, 'NOT_FOUND');
    });

    it('R-MCP-1 a body over the limit on /mcp is JSON-RPC with PAYLOAD_TOO_LARGE; on /graphql the house shape', async () => {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(40_000) } });
      const authorization = await bearer();
      const mcp = await request(server())
        .post('/mcp')
        .set('content-type', 'application/json')
        .set('accept', MCP_ACCEPT)
        .set('authorization', authorization)
        .send(big);
      expect(expectJsonRpcError(mcp, 413, -32600, 'PAYLOAD_TOO_LARGE').message).toContain('32kb');
      const graphql = await request(server())
        .post('/graphql')
        .set('content-type', 'application/json')
        .set('authorization', authorization)
        .send(big);
      expect(expectHouseError(graphql, 413, 'PAYLOAD_TOO_LARGE').message).toContain('HTTP_BODY_LIMIT');
    });

    it('R-OP-4 R-TN-10 a body nested deeper than 256 levels is refused before it is parsed: BAD_REQUEST saying where and what to do, on both edges', async () => {
      // 257 levels inside the variables; 10,000 would be the same answer, found by one pass over the bytes.
      const deep = (levels: number) => `{"query":"{ me { userId } }","variables":{"v":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;
      const authorization = await bearer();
      const graphql = await request(server())
        .post('/graphql')
        .set('content-type', 'application/json')
        .set('authorization', authorization)
        .send(deep(257));
      expect(expectHouseError(graphql, 400, 'BAD_REQUEST').message).toBe(
        'The request body nests arrays and objects more than 256 levels deep (at byte 300): flatten the value, or send it as a JSON string.',
      );
      const mcp = await request(server())
        .post('/mcp')
        .set('content-type', 'application/json')
        .set('accept', MCP_ACCEPT)
        .set('authorization', authorization)
        .send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${'{"a":'.repeat(300)}1${'}'.repeat(300)}}}`);
      expect(expectJsonRpcError(mcp, 400, -32600, 'BAD_REQUEST').message).toMatch(/more than 256 levels deep \(at byte \d+\)/);
      // 256 levels, brackets inside strings not counted: read and answered as usual.
      const within = await request(server())
        .post('/graphql')
        .set('content-type', 'application/json')
        .set('authorization', authorization)
        .send(deep(256).replace('"v":', '"w":"[[[[[[[[[[","v":'));
      expect(within.status).toBe(200);
      expect(within.body.errors).toBeUndefined();
    });

    it.each([
      ['GET', '/nope'],
      ['POST', '/nope'],
      ['GET', '/'],
      ['GET', '/graphqlx'],
      ['DELETE', '/health/ready/more'],
    ])('R-OP-4 %s %s, a path nothing serves, is a JSON 404 NOT_FOUND', async (method, path) => {
      const res = await request(server())
        [method.toLowerCase() as 'get'](path)
        .set('content-type', 'application/json')
        .send(method === 'POST' ? { query: '{ me { userId } }' } : undefined);
      expect(expectHouseError(res, 404, 'NOT_FOUND').message).toContain('POST /graphql');
    });

    it('R-OP-4 a HEAD for a path nothing serves is a 404 with a JSON content type and no body', async () => {
      const res = await request(server()).head('/nope').expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it.each([
      ['POST', '/metrics', 'GET, HEAD'],
      ['POST', '/health', 'GET, HEAD'],
      ['DELETE', '/health/ready', 'GET, HEAD'],
      ['PUT', '/graphql', 'GET, POST'],
      ['DELETE', '/graphql', 'GET, POST'],
      ['PATCH', '/graphql/', 'GET, POST'],
      ['POST', '/.well-known/oauth-protected-resource', 'GET, HEAD'],
    ])('R-OP-4 %s %s is a JSON 405 METHOD_NOT_ALLOWED with Allow: %s, before the body is read', async (method, path, allow) => {
      const res = await request(server())[method.toLowerCase() as 'post'](path).set('content-type', 'application/json').send(BROKEN_JSON);
      expect(expectHouseError(res, 405, 'METHOD_NOT_ALLOWED').message).toContain(allow);
      expect(res.headers.allow).toBe(allow);
    });

    it('R-MCP-1 /mcp keeps its own JSON-RPC 405 for GET and DELETE', async () => {
      for (const method of ['get', 'delete'] as const) {
        const res = await request(server())[method]('/mcp');
        expectJsonRpcError(res, 405, -32000, 'METHOD_NOT_ALLOWED');
        expect(res.headers.allow).toBe('POST');
      }
    });

    it.each([
      ['/graphql', 'text/plain', undefined, 400],
      ['/graphql', 'application/json; charset=latin9', undefined, 415],
      ['/graphql', 'application/json', 'gzip', 400],
      ['/graphql', 'application/json', 'x-unknown', 415],
      ['/metrics', 'application/json', 'gzip', 405],
      ['/mcp', 'application/json; charset=latin9', undefined, 415],
      ['/mcp', 'text/plain', undefined, 415],
    ])('R-OP-4 R-MCP-1 a broken body to %s as %s (encoding %s) is a JSON %d', async (path, contentType, encoding, status) => {
      const req = request(server()).post(path).set('content-type', contentType).set('accept', MCP_ACCEPT);
      // The API authenticates before a body is read or its content type looked at.
      if (path !== '/metrics') req.set('authorization', await bearer());
      if (encoding) req.set('content-encoding', encoding);
      const res = await req.send('{broken');
      const body = expectJsonError(res, status);
      if (path === '/mcp') expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) as number } });
      else
        expect(body).toMatchObject({
          errors: [{ message: expect.any(String) as string, extensions: { code: expect.any(String) as string } }],
        });
    });

    it('R-OP-4 a path that is not valid percent-encoding is a JSON 400 BAD_REQUEST', async () => {
      expectHouseError(await request(server()).get('/%E0%A4%A'), 400, 'BAD_REQUEST');
    });

    it('R-OP-4 an unexpected error is a 500 INTERNAL_SERVER_ERROR naming the request id, nothing else', async () => {
      const res = await request(server()).get('/admin/loop').set('x-request-id', `edge-${mode}`);
      const error = expectHouseError(res, 500, 'INTERNAL_SERVER_ERROR');
      expect(error).toEqual({
        message: 'Internal server error.',
        extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: `edge-${mode}` },
      });
      expect(res.headers['x-request-id']).toBe(`edge-${mode}`);
      expect(res.text).not.toMatch(/ELOOP|loop/);
    });

    it('R-FB-8 the console answers its misses in the house shape: 404 for a GET, 405 for another method', async () => {
      const missing = await request(server()).get('/admin/assets/nothing-here.js');
      expect(expectHouseError(missing, 404, 'NOT_FOUND').message).toContain('/admin/assets/nothing-here.js');
      const post = await request(server()).post('/admin/').send({});
      expectHouseError(post, 405, 'METHOD_NOT_ALLOWED');
      expect(post.headers.allow).toBe('GET, HEAD');
    });

    it('R-OP-1 R-FB-8 /metrics keeps the Prometheus text format and /admin/ its HTML page on GET', async () => {
      const metrics = await request(server()).get('/metrics').expect(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      expect(metrics.text).toContain('# TYPE');
      const page = await request(server()).get('/admin/').expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      await request(server()).get('/health').expect(200, { status: 'ok' });
    });
  });
});

describe('HTTP edge: a deliberate server error (e2e)', () => {
  it('R-OP-1 R-OP-4 /health/ready without its database is a JSON 503 with the request id, no health report or driver text', async () => {
    const t = await createTestApp();
    try {
      await request(t.app.getHttpServer()).get('/health/ready').expect(200);
      await t.database.drop();
      const res = await request(t.app.getHttpServer()).get('/health/ready');
      const error = expectHouseError(res, 503, 'INTERNAL_SERVER_ERROR');
      expect(error.message).toBe('Service Unavailable.');
      expect(error.extensions.requestId).toBe(res.headers['x-request-id']);
      expect(res.text).not.toMatch(/database|postgres|ECONN/i);
    } finally {
      await t.close();
    }
  });
});
