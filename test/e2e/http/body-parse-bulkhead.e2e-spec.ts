/**
 * R-TN-10: a request body of millions of small objects is parsed in slices, the event loop turning
 * between them, so another team's requests are served while it is parsed. Team B posts `{ me }`
 * with 10 MB of `[{"k0":0},{"k1":0},…]` in its variables (JSON.parse held the loop 1.4 s on it);
 * team A's three `{ me }` in a row, sent once the service has read B's body, are all answered
 * before B's.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memberOfNewSpace, type SpaceMember } from '../../support/fixtures';
import { gql } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Just under the 10 MB body limit: distinct keys, over and over, as the inventory's E8. */
function distinctKeysBody(): Buffer {
  const items: string[] = [];
  let length = 0;
  for (let i = 0; length < 9_800_000; i++) {
    const item = `{"k${i % 50_000}":0}`;
    items.push(item);
    length += item.length + 1;
  }
  return Buffer.from(`{"query":"{ me { userId } }","variables":{"x":[${items.join(',')}]}}`);
}

describe('A large body parsed in slices (e2e)', () => {
  let t: TestApp;
  let teamA: SpaceMember;
  let teamB: SpaceMember;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    teamA = await memberOfNewSpace(t);
    teamB = await memberOfNewSpace(t);
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  }, 60_000);
  afterAll(() => t?.close());

  /**
   * Posts `body` as team B; resolves `read` once the service has read the whole body (the request's
   * 'end' on the server: its parse starts now), `answered` with the status and text.
   */
  function postAsTeamB(body: Buffer): { read: Promise<void>; answered: Promise<{ status: number; text: string }> } {
    const server = t.app.getHttpServer();
    const read = new Promise<void>((resolve) => {
      const watch = (req: IncomingMessage) => {
        if (req.headers.authorization !== `Bearer ${teamB.token}`) return;
        server.off('request', watch);
        req.once('end', () => resolve());
      };
      server.on('request', watch);
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/graphql',
          headers: { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${teamB.token}` },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    return { read, answered };
  }

  it("R-TN-10 another team's { me }, three in a row, are all answered while a 10 MB body of small objects is parsed", async () => {
    const order: string[] = [];
    const teamB = postAsTeamB(distinctKeysBody());
    const answeredB = teamB.answered.then((answer) => {
      order.push('team B');
      return answer;
    });
    await teamB.read;
    for (let i = 0; i < 3; i++) {
      const me = await gql<{ me: { userId: string } }>(t, '{ me { userId } }', {}, teamA.token);
      expect(me.data?.me.userId).toBe(teamA.userId);
      order.push(`team A ${i + 1}`);
    }
    const answer = await answeredB;
    expect({ status: answer.status, text: answer.text.slice(0, 300) }).toMatchObject({ status: 200 });
    expect(JSON.parse(answer.text)).toEqual({ data: { me: { userId: expect.any(String) } } });
    expect(order).toEqual(['team A 1', 'team A 2', 'team A 3', 'team B']);
  }, 60_000);
});
