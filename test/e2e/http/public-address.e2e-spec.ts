/**
 * The address the service names in its RFC 9728 metadata and its OAuth challenge (R-MCP-1):
 * without PUBLIC_URL it comes from the request, so the Host header is read strictly (a URL
 * parser would read `allowed.example\@evil.example` as the allowed name), the answer is rebuilt
 * from the parsed host and port, and says it varies by Host. X-Forwarded-Proto counts only from
 * a proxy named in TRUSTED_PROXIES. Raw requests go over a socket: they carry bytes an HTTP
 * client would tidy up or refuse.
 */
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createReplica, createTestApp, type TestApp } from '../../support/test-app';

const METADATA = '/.well-known/oauth-protected-resource/mcp';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sends `head` (request line and header lines, without the blank line) and `body` as they are, and reads the answer. */
function rawRequest(port: number, head: string[], body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = top.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) });
    });
    const length = body ? [`Content-Length: ${Buffer.byteLength(body)}`, 'Content-Type: application/json'] : [];
    socket.end([...head, ...length, 'Connection: close', '', body].join('\r\n'));
  });
}

async function listening(app: NestExpressApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as AddressInfo).port;
}

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp({ ALLOWED_HOSTS: 'allowed.example,localhost,[::1]' });
  port = await listening(t.app);
});

afterAll(async () => {
  await t?.close();
});

async function replica(env: Record<string, string>): Promise<NestExpressApplication> {
  // Closed with the test file (file-resources.ts).
  return (await createReplica(t, env)).app;
}

describe('R-MCP-1 the Host header is read strictly', () => {
  it('R-MCP-1 a backslash before userinfo (allowed.example\\@evil.example) is refused with the 403 JSON answer on every checked route', async () => {
    const host = 'Host: allowed.example\\@evil.example';
    const metadata = await rawRequest(port, [`GET ${METADATA} HTTP/1.1`, host]);
    expect(metadata.status).toBe(403);
    expect(metadata.headers['content-type']).toMatch(/^application\/json/);
    expect(metadata.body).toEqual({
      errors: [
        {
          message:
            'The Host "allowed.example\\\\@evil.example" is not a host name with an optional port; send the host name you reach the service at.',
          extensions: { code: 'FORBIDDEN' },
        },
      ],
    });

    const mcp = await rawRequest(
      port,
      ['POST /mcp HTTP/1.1', host, 'Accept: application/json, text/event-stream'],
      JSON.stringify(INITIALIZE),
    );
    expect(mcp.status).toBe(403);
    expect(mcp.headers['www-authenticate']).toBeUndefined();
    expect(mcp.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { code: 'FORBIDDEN' } } });

    const graphql = await rawRequest(port, ['POST /graphql HTTP/1.1', host], JSON.stringify({ query: '{ me { userId } }' }));
    expect(graphql.status).toBe(403);

    // Control: the allowed name itself is answered.
    const allowed = await rawRequest(port, [`GET ${METADATA} HTTP/1.1`, 'Host: allowed.example']);
    expect(allowed).toMatchObject({ status: 200, body: { resource: 'http://allowed.example/mcp' } });
  });

  it.each([
    ['userinfo', 'evil.example@allowed.example'],
    ['a path', 'allowed.example/evil'],
    ['a port out of range', 'allowed.example:65536'],
    ['an empty port', 'allowed.example:'],
    ['an IPv6 zone', '[fe80::1%25eth0]'],
  ])('R-MCP-1 %s in the Host is refused', async (_label, host) => {
    const answer = await rawRequest(port, [`GET ${METADATA} HTTP/1.1`, `Host: ${host}`]);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      errors: [{ message: expect.stringContaining('is not a host name'), extensions: { code: 'FORBIDDEN' } }],
    });
  });

  it('R-MCP-1 a request with two Host headers is refused, whichever comes first', async () => {
    for (const hosts of [
      ['Host: allowed.example', 'Host: evil.example'],
      ['Host: evil.example', 'Host: allowed.example'],
    ]) {
      const answer = await rawRequest(port, [`GET ${METADATA} HTTP/1.1`, ...hosts]);
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ errors: [{ message: 'The request has more than one Host header; send one.' }] });
    }
  });
});

describe('R-MCP-1 the metadata and the challenge name the parsed host, and vary by it', () => {
  it.each([
    ['LOCALHOST:3000', 'http://localhost:3000'],
    ['Allowed.Example:80', 'http://allowed.example'],
    ['[0:0:0:0:0:0:0:1]:8080', 'http://[::1]:8080'],
  ])('R-MCP-1 Host %s is named as %s, with Vary: Host and a cache-control only the client may keep', async (host, base) => {
    const server = t.app.getHttpServer();
    for (const [path, resource] of [
      [METADATA, `${base}/mcp`],
      ['/.well-known/oauth-protected-resource', base],
    ]) {
      const answer = await request(server).get(path).set('host', host).expect(200);
      expect(answer.body.resource).toBe(resource);
      expect(answer.headers.vary).toBe('Host');
      expect(answer.headers['cache-control']).toBe('private, max-age=300');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
    }

    const anonymous = await request(server)
      .post('/mcp')
      .set('host', host)
      .set('accept', 'application/json, text/event-stream')
      .send(INITIALIZE);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}${METADATA}"`);
    expect(anonymous.headers.vary).toBe('Host');
  });

  it('R-MCP-1 with PUBLIC_URL the document is the same for every Host: any cache may keep it', async () => {
    const server = (await replica({ PUBLIC_URL: 'https://recall.example.com', ALLOWED_HOSTS: 'localhost' })).getHttpServer();
    for (const host of ['recall.example.com', 'localhost:3000']) {
      const answer = await request(server).get(METADATA).set('host', host).expect(200);
      expect(answer.body.resource).toBe('https://recall.example.com/mcp');
      expect(answer.headers['cache-control']).toBe('public, max-age=300');
      expect(answer.headers.vary).toBe('Host');
    }
  });
});

describe('R-MCP-1 X-Forwarded-Proto counts only from a trusted proxy (TRUSTED_PROXIES)', () => {
  const forwarded = (app: NestExpressApplication, proto: string) =>
    request(app.getHttpServer()).get(METADATA).set('host', 'localhost:3000').set('x-forwarded-proto', proto).expect(200);

  it('R-MCP-1 unset, no proxy is trusted: a client claiming https does not change the scheme', async () => {
    const answer = await forwarded(t.app, 'https');
    expect(answer.body.resource).toBe('http://localhost:3000/mcp');
    expect(answer.headers.vary).toBe('Host');
  });

  it('R-MCP-1 a proxy elsewhere than the caller’s address is not believed either', async () => {
    const elsewhere = await replica({ TRUSTED_PROXIES: '10.0.0.0/8' });
    expect((await forwarded(elsewhere, 'https')).body.resource).toBe('http://localhost:3000/mcp');
  });

  it('R-MCP-1 TRUSTED_PROXIES=loopback: the proxy’s https is the scheme; the Host is still the Host header; anything but http(s) reads as http', async () => {
    const behindProxy = await replica({ TRUSTED_PROXIES: 'loopback' });
    const answer = await forwarded(behindProxy, 'https');
    expect(answer.body.resource).toBe('https://localhost:3000/mcp');
    expect(answer.headers.vary).toBe('Host, X-Forwarded-Proto');

    const withForwardedHost = await request(behindProxy.getHttpServer())
      .get(METADATA)
      .set('host', 'localhost:3000')
      .set('x-forwarded-proto', 'https')
      .set('x-forwarded-host', 'evil.example')
      .expect(200);
    expect(withForwardedHost.body.resource).toBe('https://localhost:3000/mcp');

    expect((await forwarded(behindProxy, 'javascript')).body.resource).toBe('http://localhost:3000/mcp');
    expect((await forwarded(behindProxy, 'HTTPS, http')).body.resource).toBe('https://localhost:3000/mcp');
  });
});
