import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, type Pool } from 'pg';
import { signToken } from '../../src/tenancy/token-signer';
import { memberOfNewSpace, RECORD, type SpaceMember, toolResult } from '../support/fixtures';
import { gql, ok } from '../support/graphql';
import { createTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/*
 * SPEC §8 R-OP-2 (graceful shutdown) and R-OP-6 (database faults). A request is made slow for
 * real: a separate connection holds `select … for update` on a conversation in an open
 * transaction, and recordToolResults into that conversation waits for the lock (its write path
 * locks the conversation FOR NO KEY UPDATE, and inserting a new message's foreign key wants
 * FOR KEY SHARE; both conflict with FOR UPDATE).
 */

const ROOT = join(__dirname, '..', '..');
const CHILD_SECRET = 'faults-spec-secret-that-is-long-enough-0000';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Blocking a conversation row, and finding the service's backend that waits for it.

interface Blocker {
  release(how?: 'commit' | 'rollback'): Promise<void>;
}

/** Opens a transaction on its own connection holding the conversation row FOR UPDATE. */
async function lockConversation(databaseUrl: string, conversationId: string): Promise<Blocker> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  const locked = await client.query('select id from conversations where id = $1 for update', [conversationId]);
  if (locked.rowCount !== 1) throw new Error(`conversation ${conversationId} was not there to lock`);
  let released = false;
  return {
    async release(how = 'commit') {
      if (released) return;
      released = true;
      try {
        await client.query(how);
      } finally {
        await client.end();
      }
    },
  };
}

/** Waits until a backend of this database waits on a lock in the write path (on conversations); returns its pid. */
async function waitForLockWaiter(sql: Pool | Client, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql.query<{ pid: number }>(
      `select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid() and (query ilike '%conversations%' or query ilike '%record_tool_results%')`,
    );
    if (rows.length > 0) return rows[0].pid;
    if (Date.now() > deadline) throw new Error(`no backend waited on a lock within ${timeoutMs} ms`);
    await sleep(25);
  }
}

async function snapshotCount(sql: Pool | Client, toolUseId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from message_tool_results where tool_use_id = $1', [toolUseId]);
  return rows[0].n;
}

interface MaskedError {
  message: string;
  extensions?: Record<string, unknown>;
}

/** R-OP-3/R-OP-6: only the code and a request id reach the client; no SQL, driver text or stack. */
function expectMasked(body: { data?: unknown; errors?: MaskedError[] }, requestId?: string): void {
  expect(body.errors).toHaveLength(1);
  const [error] = body.errors!;
  expect(error.message).toBe('Internal server error.');
  expect(error.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
  if (requestId) expect(error.extensions?.requestId).toBe(requestId);
  else expect(typeof error.extensions?.requestId).toBe('string');
  expect(String(error.extensions?.requestId).length).toBeGreaterThan(0);
  expect(error.extensions).not.toHaveProperty('stacktrace');
  const { requestId: _id, ...rest } = error.extensions ?? {};
  expect(JSON.stringify({ ...body, errors: [{ ...error, extensions: rest }] })).not.toMatch(
    /select |insert |update |conversations|message_tool_results|terminat|timeout|knex|pool|canceling|statement|\bat .*\.(ts|js):\d+/i,
  );
}

// ---------------------------------------------------------------------------------------------
// The real entry point as a child process (as in startup.e2e-spec.ts).

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const { DATABASE_URL: _a, TEST_DATABASE_URL: _b, ...inherited } = process.env;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...inherited,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      AUTH_JWT_SECRET: CHILD_SECRET,
      RETENTION_ENABLED: 'false',
      FEATURE_FLAG_CACHE_TTL_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = { child, port, output: () => output, exited };
  const deadline = Date.now() + 20000;
  while (!output.includes('serving GraphQL')) {
    if (child.exitCode !== null) throw new Error(`the service exited early:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not serving after 20 s:\n${output}`);
    }
    await sleep(100);
  }
  return started;
}

interface HttpAnswer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: MaskedError[] };
  headers: Record<string, string | string[] | undefined>;
}

/** POST /graphql to the child; `agent` decides whether the connection is kept alive. */
function postGraphql(port: number, query: string, variables: Record<string, unknown>, token: string, agent: Agent | false = false): Promise<HttpAnswer> {
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
  const added = await postGraphql(port, 'mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id } }', { s: spaceId, u: userId }, admin);
  expect(added.body.errors).toBeUndefined();
  const token = await signToken({ userId, teamId, scopes: ['memory:read', 'memory:write'], secret: CHILD_SECRET });
  return { userId, teamId, token, spaceId };
}

// ---------------------------------------------------------------------------------------------

describe('Faults: graceful shutdown (process)', () => {
  let database: TestDatabase;
  let started: Started | undefined;
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
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGKILL');
      await started.exited;
    }
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
    await waitForLockWaiter(sql);
    await sleep(300);

    started.child.kill('SIGTERM');
    let exitedAt = 0;
    void started.exited.then(() => (exitedAt = Date.now()));
    await sleep(300);
    // Stops accepting: a new connection is refused (or at least not served).
    const probe = await postGraphql(port, '{ me { userId } }', {}, member.token).then(
      (answer) => ({ answer, code: undefined }),
      // Node's errors come from another realm than jest's sandbox: no instanceof Error here.
      (error: NodeJS.ErrnoException) => ({ answer: undefined, code: error.code ?? String(error) }),
    );
    if (probe.answer) expect(probe.answer.body.data?.me ?? null).toBeNull();
    else expect(probe.code).toMatch(/ECONNREFUSED|ECONNRESET/);
    // Still waiting for the in-flight request: not gone yet.
    expect(started.child.exitCode).toBeNull();

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
    expect((await postGraphql(port, RECORD, { input: [toolResult(member.spaceId, conversationId)] }, member.token)).body.errors).toBeUndefined();

    blocker = await lockConversation(database.url, conversationId);
    const slow = postGraphql(port, RECORD, { input: [toolResult(member.spaceId, conversationId)] }, member.token);
    slow.catch(() => undefined);
    await waitForLockWaiter(sql);

    const signalledAt = Date.now();
    started.child.kill('SIGTERM');
    const code = await Promise.race([started.exited, sleep(5000).then(() => 'still running' as const)]);
    const elapsed = Date.now() - signalledAt;
    expect(code).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2500);
    expect(started.output()).toContain('outlived SHUTDOWN_GRACE_MS (1000 ms)');
  }, 40000);
});

describe('Faults: database (in-process)', () => {
  let t: TestApp | undefined;
  let blocker: Blocker | undefined;

  afterEach(async () => {
    await blocker?.release('rollback').catch(() => undefined);
    blocker = undefined;
    await t?.close();
    t = undefined;
  });

  /** A member with one conversation already recorded (so its row exists to be locked). */
  async function memberWithConversation(app: TestApp): Promise<{ member: SpaceMember; conversationId: string }> {
    const member = await memberOfNewSpace(app);
    const conversationId = crypto.randomUUID();
    await ok(app, RECORD, { input: [toolResult(member.spaceId, conversationId)] }, member.token);
    return { member, conversationId };
  }

  async function expectHealthy(app: TestApp, member: SpaceMember): Promise<void> {
    // Sequential, then concurrent: the pool hands out working connections again.
    for (let i = 0; i < 3; i++) {
      const res = await ok<{ recordToolResults: { createdCount: number } }>(app, RECORD, { input: [toolResult(member.spaceId, crypto.randomUUID())] }, member.token);
      expect(res.recordToolResults.createdCount).toBe(1);
    }
    await Promise.all(Array.from({ length: 4 }, () => ok(app, '{ me { userId } }', {}, member.token)));
  }

  it('R-OP-6 a backend killed mid-request gives a masked INTERNAL_SERVER_ERROR, the app stays up and the next requests succeed', async () => {
    t = await createTestApp();
    const { member, conversationId } = await memberWithConversation(t);

    blocker = await lockConversation(t.database.url, conversationId);
    const item = toolResult(member.spaceId, conversationId);
    const pending = gql(t, RECORD, { input: [item] }, member.token, { 'x-request-id': 'req-killed-backend-1' });
    const pid = await waitForLockWaiter(t.sql);
    const killed = await t.sql.query<{ ok: boolean }>('select pg_terminate_backend($1) as ok', [pid]);
    if (!killed.rows[0].ok) {
      const who = await t.sql.query('select pid, state, wait_event_type, left(query, 80) as query from pg_stat_activity where datname = current_database()');
      throw new Error(`pg_terminate_backend(${pid}) found no such backend; there were ${JSON.stringify(who.rows)}`);
    }

    const res = await pending;
    expect(res.status).toBe(200);
    expectMasked(res, 'req-killed-backend-1');
    expect(res.data ?? null).toBeNull();
    await blocker.release('commit');
    blocker = undefined;
    expect(await snapshotCount(t.sql, item.toolUseId)).toBe(0);

    await expectHealthy(t, member);
    // The same conversation is writable again through the recovered pool.
    const again = await ok<{ recordToolResults: { createdCount: number } }>(t, RECORD, { input: [item] }, member.token);
    expect(again.recordToolResults.createdCount).toBe(1);
  });

  it('R-OP-6 with the pool exhausted a request fails within the acquire timeout instead of hanging, and the pool recovers', async () => {
    t = await createTestApp({ DB_POOL_MAX: '1', DB_ACQUIRE_TIMEOUT_MS: '1000' });
    const { member, conversationId } = await memberWithConversation(t);

    blocker = await lockConversation(t.database.url, conversationId);
    const item = toolResult(member.spaceId, conversationId);
    const holder = gql(t, RECORD, { input: [item] }, member.token);
    await waitForLockWaiter(t.sql);

    const startedAt = Date.now();
    const starved = await gql(t, '{ me { userId } }', {}, member.token, { 'x-request-id': 'req-pool-exhausted-1' });
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(800);
    expect(elapsed).toBeLessThan(3000);
    expectMasked(starved, 'req-pool-exhausted-1');

    await blocker.release('commit');
    blocker = undefined;
    const held = await holder;
    expect(held.errors).toBeUndefined();
    expect(held.data).toMatchObject({ recordToolResults: { createdCount: 1 } });
    expect(await snapshotCount(t.sql, item.toolUseId)).toBe(1);

    await expectHealthy(t, member);
  });

  it('R-OP-6 every statement has a timeout: a request blocked past DB_STATEMENT_TIMEOUT_MS fails masked, and the next succeeds', async () => {
    t = await createTestApp({ DB_STATEMENT_TIMEOUT_MS: '1500' });
    const { member, conversationId } = await memberWithConversation(t);

    blocker = await lockConversation(t.database.url, conversationId);
    const item = toolResult(member.spaceId, conversationId);
    const startedAt = Date.now();
    const res = await gql(t, RECORD, { input: [item] }, member.token, { 'x-request-id': 'req-statement-timeout-1' });
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(1300);
    expect(elapsed).toBeLessThan(4000);
    expectMasked(res, 'req-statement-timeout-1');
    // The lock is still held: the statement gave up, nothing waits any longer.
    const waiting = await t.sql.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    expect(waiting.rowCount).toBe(0);
    await blocker.release('commit');
    blocker = undefined;
    expect(await snapshotCount(t.sql, item.toolUseId)).toBe(0);

    await expectHealthy(t, member);
  });
});
