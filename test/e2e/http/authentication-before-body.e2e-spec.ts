/**
 * R-TN-10: unauthenticated work is bounded before any. A request to the API without a valid token
 * is answered before its body is read — the answer arrives while the client is still sending — so
 * the large body limit (HTTP_BODY_LIMIT) serves authenticated calls only, and no other path reads
 * a body at all. Each request below declares a 9.8 MB body, sends 64 KB of it and waits: had the
 * service read the body first, no answer could come.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createTestApp, identity, type TestApp } from '../../support/test-app';
import { listenForMcp } from '../mcp/support/mcp';

const DECLARED_BYTES = 9_800_000;
const SENT_BYTES = 64 * 1024;

interface EarlyAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** POSTs `path` declaring a 9.8 MB JSON body, sends only its first 64 KB, and resolves with the answer. */
function postUnfinished(base: URL, path: string, headers: Record<string, string> = {}): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': DECLARED_BYTES,
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        // The rest of the body is never sent.
        req.destroy();
      });
    });
    req.write(`{"query":"${'x'.repeat(SENT_BYTES)}`);
  });
}

describe('R-TN-10 authentication before the body (e2e)', () => {
  let t: TestApp;
  let base: URL;
  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
    base = await listenForMcp(t);
  });
  afterAll(() => t?.close());

  it('R-TN-10 POST /graphql without a token is answered UNAUTHENTICATED while its body is still on its way', async () => {
    const answer = await postUnfinished(base, '/graphql');
    expect(answer).toMatchObject({
      status: 200,
      body: { errors: [{ message: 'Send Authorization: Bearer <token>.', extensions: { code: 'UNAUTHENTICATED' } }] },
    });
  });

  it('R-TN-10 a forged or expired token is refused the same way, before the body', async () => {
    const forged = `${(await identity(['memory:write'])).token.slice(0, -4)}AAAA`;
    const answer = await postUnfinished(base, '/graphql', { authorization: `Bearer ${forged}` });
    expect(answer).toMatchObject({ status: 200, body: { errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] } });
  });

  it('R-TN-10 R-MCP-1 POST /mcp without a token gets the 401 OAuth challenge in JSON-RPC, before the body', async () => {
    const answer = await postUnfinished(base, '/mcp');
    expect(answer).toMatchObject({
      status: 401,
      body: { jsonrpc: '2.0', id: null, error: { code: -32001, data: { code: 'UNAUTHENTICATED' } } },
    });
    expect(answer.headers['www-authenticate']).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });

  it('R-TN-10 a path nothing serves is a 404 before its body: no other path reads a body', async () => {
    const answer = await postUnfinished(base, '/anything-else');
    expect(answer).toMatchObject({ status: 404, body: { errors: [{ extensions: { code: 'NOT_FOUND' } }] } });
  });

  it('R-TN-10 a body over HTTP_BODY_LIMIT without a token is UNAUTHENTICATED, not read to find it too large', async () => {
    const answer = await postUnfinished(base, '/graphql', { 'content-length': String(50 * 1024 * 1024) });
    expect(answer).toMatchObject({ status: 200, body: { errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] } });
  });
});
