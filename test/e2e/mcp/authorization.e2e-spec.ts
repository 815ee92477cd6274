/**
 * The edge an MCP client (and a browser) meets before any tool runs (R-MCP-1, R-TN-1):
 * - Host/Origin validation against DNS rebinding and cross-site pages, before authentication;
 * - OAuth discovery for the resource server: a 401 points at RFC 9728 metadata naming the
 *   authorization server(s) and scopes; a missing scope is a 403 insufficient_scope naming it;
 * - the token's audience is checked when configured.
 * Driven over real HTTP against the listening service; the SDK's own client-side helpers read
 * the challenge and discover the metadata, as a remote MCP client would.
 */
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import request from 'supertest';
import { signToken } from '../../../src/tenancy/token-signer';
import { listenForMcp } from './support/mcp';
import { createReplica, createTestApp, identity, type Replica, TEST_JWT_SECRET, type TestApp } from '../../support/test-app';

const AUTH_SERVER = 'https://auth.example.com';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const ME = JSON.stringify({ query: '{ me { userId } }' });

let t: TestApp;
let base: string;
let mcpUrl: URL;
const replicas: Replica[] = [];

beforeAll(async () => {
  t = await createTestApp({ AUTH_AUTHORIZATION_SERVERS: AUTH_SERVER });
  mcpUrl = await listenForMcp(t);
  base = mcpUrl.origin;
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await t?.close();
});

async function replica(env: Record<string, string>): Promise<Replica> {
  const started = await createReplica(t, env);
  replicas.push(started);
  return started;
}

function postMcp(token: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const authorization: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return fetch(mcpUrl, { method: 'POST', headers: { ...JSON_HEADERS, ...authorization, ...headers }, body: JSON.stringify(body) });
}

describe('R-MCP-1 Host and Origin validation (DNS rebinding, cross-site pages)', () => {
  it('R-MCP-1 a foreign Origin is refused with 403 before authentication: JSON-RPC on /mcp, a GraphQL error on /graphql', async () => {
    const { token } = await identity(['memory:read']);
    for (const credentials of [null, token]) {
      const refused = await postMcp(credentials, INITIALIZE, { origin: 'http://evil.example.com' });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refused.headers.get('www-authenticate')).toBeNull();
      expect(await refused.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: expect.stringContaining('"http://evil.example.com" may not call this API'),
          data: { code: 'FORBIDDEN' },
        },
      });
    }

    const graphql = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, origin: 'https://evil.example.com' },
      body: ME,
    });
    expect(graphql.status).toBe(403);
    expect(await graphql.json()).toEqual({
      errors: [{ message: expect.stringContaining('ALLOWED_ORIGINS'), extensions: { code: 'FORBIDDEN' } }],
    });
  });

  it('R-MCP-1 a foreign Host (a rebound name) is refused with 403 even with a valid token; "null" origins too', async () => {
    const { token } = await identity(['memory:read']);
    const server = t.app.getHttpServer();
    const rebound = await request(server)
      .post('/mcp')
      .set(JSON_HEADERS)
      .set('host', 'evil.example.com')
      .set('authorization', `Bearer ${token}`)
      .send(INITIALIZE);
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.message).toContain('The Host "evil.example.com" is not one this service answers as');

    const graphql = await request(server).post('/graphql').set('host', 'evil.example.com:80').set('authorization', `Bearer ${token}`).send({
      query: '{ me { userId } }',
    });
    expect(graphql.status).toBe(403);
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const sandboxed = await postMcp(token, INITIALIZE, { origin: 'null' });
    expect(sandboxed.status).toBe(403);
  });

  it('R-MCP-1 no Origin (servers, agents) works; so do the service’s own origin (the admin console) and loopback pages in development', async () => {
    const { token } = await identity(['memory:read']);
    expect((await postMcp(token, INITIALIZE)).status).toBe(200);
    expect((await postMcp(token, INITIALIZE, { origin: base })).status).toBe(200);

    for (const origin of [base, 'http://localhost:5173']) {
      const answer = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, origin },
        body: ME,
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: unknown }).data).toBeTruthy();
    }
  });

  it('R-MCP-1 configured hosts and origins replace the loopback defaults', async () => {
    const configured = await replica({ ALLOWED_HOSTS: 'recall.example.com', ALLOWED_ORIGINS: 'https://app.example.com' });
    const server = configured.app.getHttpServer();
    const { token } = await identity(['memory:read']);
    const post = (host: string, origin?: string) => {
      const pending = request(server).post('/graphql').set('host', host).set('authorization', `Bearer ${token}`);
      return (origin ? pending.set('origin', origin) : pending).send({ query: '{ me { userId } }' });
    };
    expect((await post('recall.example.com')).status).toBe(200);
    expect((await post('recall.example.com:8443', 'https://app.example.com')).status).toBe(200);
    expect((await post('recall.example.com', 'https://recall.example.com')).status).toBe(200);
    expect((await post('recall.example.com', 'https://other.example.com')).status).toBe(403);
    expect((await post('127.0.0.1')).status).toBe(403);
  });
});

describe('R-MCP-1 R-TN-1 OAuth discovery for the resource server (RFC 9728)', () => {
  it('R-MCP-1 a missing token is a 401 whose resource_metadata resolves to a valid RFC 9728 document for /mcp', async () => {
    const anonymous = await postMcp(null, INITIALIZE);
    expect(anonymous.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(anonymous);
    expect(challenge.error).toBeUndefined();
    expect(challenge.resourceMetadataUrl?.href).toBe(`${base}/.well-known/oauth-protected-resource/mcp`);

    const served = await fetch(challenge.resourceMetadataUrl!);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.headers.get('access-control-allow-origin')).toBe('*');
    const document = OAuthProtectedResourceMetadataSchema.parse(await served.json());
    expect(document).toEqual({
      resource: mcpUrl.href,
      authorization_servers: [AUTH_SERVER],
      scopes_supported: ['memory:read', 'memory:write', 'feedback:write', 'admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'recall-ledger',
    });

    // The SDK client's own discovery finds the same document from the server URL alone.
    await expect(discoverOAuthProtectedResourceMetadata(mcpUrl)).resolves.toEqual(document);
    // The whole service's metadata sits at the root form.
    const root = OAuthProtectedResourceMetadataSchema.parse(await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json());
    expect(root.resource).toBe(base);
  });

  it('R-MCP-1 behind a proxy, PUBLIC_URL names the resource; a foreign Host cannot plant itself in the metadata', async () => {
    const proxied = await replica({ PUBLIC_URL: 'https://recall.example.com', AUTH_AUTHORIZATION_SERVERS: AUTH_SERVER });
    const server = proxied.app.getHttpServer();
    const anonymous = await request(server).post('/mcp').set(JSON_HEADERS).set('host', 'recall.example.com').send(INITIALIZE);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://recall.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const metadata = await request(server).get('/.well-known/oauth-protected-resource/mcp').set('host', 'recall.example.com');
    expect(metadata.body.resource).toBe('https://recall.example.com/mcp');

    const planted = await request(t.app.getHttpServer()).get('/.well-known/oauth-protected-resource/mcp').set('host', 'evil.example.com');
    expect(planted.status).toBe(403);
  });

  it('R-TN-1 an invalid token is a 401 with error="invalid_token" and the same pointer', async () => {
    const forged = await postMcp('not.a.jwt', INITIALIZE);
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The bearer token is invalid or expired.", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('R-MCP-1 a tool call without its scope is a 403 insufficient_scope naming the scope, answering the call’s id; batches too', async () => {
    const { token } = await identity(['feedback:write']);
    const callRecall = { jsonrpc: '2.0', id: 'call-7', method: 'tools/call', params: { name: 'recall_memory', arguments: {} } };
    const refused = await postMcp(token, callRecall);
    expect(refused.status).toBe(403);
    const challenge = extractWWWAuthenticateParams(refused);
    expect(challenge).toEqual({
      error: 'insufficient_scope',
      scope: 'memory:read',
      resourceMetadataUrl: new URL(`${base}/.well-known/oauth-protected-resource/mcp`),
    });
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 'call-7',
      error: {
        code: -32003,
        message: 'The tool recall_memory needs the scope memory:read; the bearer token does not carry it.',
        data: { code: 'FORBIDDEN' },
      },
    });

    const batch = await postMcp(token, [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, callRecall]);
    expect(batch.status).toBe(403);

    // Listing needs no scope, and a tool of an unknown name is the server's own "not found".
    expect((await postMcp(token, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })).status).toBe(200);
    const unknown = await postMcp(token, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'constructor', arguments: {} } });
    expect(unknown.status).toBe(200);
  });

  it('R-TN-1 with AUTH_JWT_AUDIENCE set, only tokens issued for this resource are accepted', async () => {
    const resource = 'https://recall.example.com/mcp';
    const audienced = await replica({
      PUBLIC_URL: 'https://recall.example.com',
      AUTH_JWT_AUDIENCE: `${resource},https://recall.example.com`,
    });
    const server = audienced.app.getHttpServer();
    const ids = { userId: crypto.randomUUID(), teamId: crypto.randomUUID(), scopes: ['memory:read'], secret: TEST_JWT_SECRET };
    const send = async (audience?: string) =>
      request(server)
        .post('/mcp')
        .set(JSON_HEADERS)
        .set('host', 'recall.example.com')
        .set('authorization', `Bearer ${await signToken({ ...ids, audience })}`)
        .send(INITIALIZE);

    expect((await send(resource)).status).toBe(200);
    expect((await send('https://recall.example.com')).status).toBe(200);
    for (const audience of [undefined, 'https://other.example.com/mcp']) {
      const refused = await send(audience);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    }
  });
});
