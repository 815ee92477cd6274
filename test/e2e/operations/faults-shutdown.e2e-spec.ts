/*
 * docs/requirements.md §8, R-OP-2 (graceful shutdown): the real entry point as a child process (as in
 * startup.e2e-spec.ts), sent SIGTERM while a request is held up by a row lock (see support/row-lock.ts).
 */
import { Agent, request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { signToken } from '../../../src/tenancy/token-signer';
import { RECORD, type SpaceMember, toolResult } from '../../support/fixtures';
import type { GraphqlError } from '../../support/graphql';
import { type Blocker, lockConversation, snapshotCount, waitForLockWaiter } from './support/row-lock';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process';

const CHILD_SECRET = 'faults-spec-secret-that-is-long-enough-0000';

/** The real entry point as a child process, serving. */
function startService(databaseUrl: string, env: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess(databaseUrl, { AUTH_JWT_SECRET: CHILD_SECRET, ...env });
}

interface HttpAnswer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: GraphqlError[] };
  headers: Record<string, string | string[] | undefined>;
}

/** POST /graphql to the child; `agent` decides whether the connection is kept alive. */
function postGraphql(
  port: number,
  query: string,
  variables: Record<string, unknown>,
  token: string,
  agent: Agent | false = false,
): Promise<HttpAnswer> {
  const payload = JSON.stringify({ query, variables });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: `Bearer ${token}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, headers: res.headers });
          } catch (error) {
            reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)} (${String(error)})`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A member of a new space on the child service (admin creates the space and adds the member). */
async function childMember(port: number): Promise<SpaceMember> {
  const teamId = crypto.randomUUID();
  const admin = await signToken({ userId: crypto.randomUUID(), teamId, scopes: ['admin'], secret: CHILD_SECRET });
  const created = await postGraphql(port, 'mutation { createSpace(name: "faults") { id } }', {}, admin);
  const spaceId = (created.body.data as { createSpace: { id: string } }).createSpace.id;
  const userId = crypto.randomUUID();
  const added = await postGraphql(
    port,
    'mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id } }',
    { s: spaceId, u: userId },
    admin,
  );
  expect(added.body.errors).toBeUndefined();
  const token = await signToken({ userId, teamId, scopes: ['memory:read', 'memory:write'], secret: CHILD_SECRET });
  return { userId, teamId, token, spaceId };
}

describe('Faults: graceful shutdown (process)', () => {
  let database: TestDatabase;
  let started: ServiceProcess | undefined;
  let blocker: Blocker | undefined;
  let sql: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
  });
  afterEach(async () => {
    await blocker?.release('rollback').catch(() => undefined);
    blocker = undefined;
    await started?.stop('SIGKILL');
    started = undefined;
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
  });

  it('R-OP-2 SIGTERM during a slow request: new connections are refused, the request completes, then the process exits 0', async () => {
    started = await startService(database.url, { SHUTDOWN_GRACE_MS: '10000' });
    const { port } = started;
    const member = await childMember(port);
    const conversationId = crypto.randomUUID();
    const first = await postGraphql(port, RECORD, { input: [toolResult(member.spaceId, conversationId)] }, member.token);
    expect(first.body.errors).toBeUndefined();

    blocker = await lockConversation(database.url, conversationId);
    // The in-flight request on a kept-alive connection, as real clients send them.
    const keepAlive = new Agent({ keepAlive: true });
    const slowItem = toolResult(member.spaceId, conversationId);
    const slow = postGraphql(port, RECORD, { input: [slowItem] }, member.token, keepAlive);
    slow.catch(() => undefined);
    // The slow request is in flight: it waits for the row lock.
    await waitForLockWaiter(sql);

    started.child.kill('SIGTERM');
    let exitedAt = 0;
    void started.exited.then(() => (exitedAt = Date.now()));
    // Stops accepting: new requests, sent one after another from the signal on, are soon refused (or at least not served).
    const probeOnce = () =>
      postGraphql(port, '{ me { userId } }', {}, member.token).then(
        (answer) => ({ answer, code: undefined }),
        // Node's errors come from another realm than jest's sandbox: no instanceof Error here.
        (error: NodeJS.ErrnoException) => ({ answer: undefined, code: error.code ?? String(error) }),
      );
    let probe = await probeOnce();
    for (let tries = 1; probe.answer?.body.data?.me && tries < 200; tries++) probe = await probeOnce();
    if (probe.answer) expect(probe.answer.body.data?.me ?? null).toBeNull();
    else expect(probe.code).toMatch(/ECONNREFUSED|ECONNRESET/);
    // Still waiting for the in-flight request: not gone yet.
    expect(started.child.exitCode).toBeNull();

    // Not synchronisation: half a second in which a process that wrongly left its request behind would exit.
    await sleep(500);
    const releasedAt = Date.now();
    await blocker.release('commit');
    const answer = await slow;
    keepAlive.destroy();
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data).toMatchObject({ recordToolResults: { createdCount: 1, duplicateCount: 0 } });
    expect(await snapshotCount(sql, slowItem.toolUseId)).toBe(1);

    const code = await started.exited;
    expect({ code, output: code === 0 ? '' : started.output() }).toEqual({ code: 0, output: '' });
    // Exits once the request is done, not after a keep-alive timeout or the grace period.
    expect(exitedAt - releasedAt).toBeLessThan(3000);
    expect(started.output()).toContain('SIGTERM received, shutting down');
    expect(started.output()).not.toContain('outlived SHUTDOWN_GRACE_MS');
  }, 40000);

  it('R-OP-2 when in-flight work outlives SHUTDOWN_GRACE_MS the process exits 1 after the grace period', async () => {
    started = await startService(database.url, { SHUTDOWN_GRACE_MS: '1000' });
    const { port } = started;
    const member = await childMember(port);
    const conversationId = crypto.randomUUID();
    expect(
      (await postGraphql(port, RECORD, { input: [toolResult(member.spaceId, conversationId)] }, member.token)).body.errors,
    ).toBeUndefined();

    blocker = await lockConversation(database.url, conversationId);
    const slow = postGraphql(port, RECORD, { input: [toolResult(member.spaceId, conversationId)] }, member.token);
    slow.catch(() => undefined);
    await waitForLockWaiter(sql);

    const signalledAt = Date.now();
    started.child.kill('SIGTERM');
    // A bound on the wait, not synchronisation: a process that never exits fails here, not at jest's timeout.
    const code = await Promise.race([started.exited, sleep(5000).then(() => 'still running' as const)]);
    const elapsed = Date.now() - signalledAt;
    expect(code).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2500);
    expect(started.output()).toContain('outlived SHUTDOWN_GRACE_MS (1000 ms)');
  }, 40000);
});
