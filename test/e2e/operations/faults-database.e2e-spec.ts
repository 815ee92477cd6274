/*
 * docs/requirements.md §8, R-OP-6 (database faults): a backend killed mid-request (masked, R-OP-3), an
 * exhausted pool and a statement past its timeout (both retryable), each made real by a row lock (see
 * support/row-lock.ts).
 * A database that falls silent: faults-database-silent.e2e-spec.ts.
 */
import { memberOfNewSpace, RECORD, type SpaceMember, toolResult } from '../../support/fixtures';
import { gql, type GraphqlError, ok } from '../../support/graphql';
import { type Blocker, lockConversation, snapshotCount, waitForLockWaiter } from './support/row-lock';
import { createTestApp, type TestApp } from '../../support/test-app';

/** R-OP-3/R-OP-6: only the code and a request id reach the client; no SQL, driver text or stack. */
function expectMasked(body: { data?: unknown; errors?: GraphqlError[] }, requestId?: string): void {
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
      const res = await ok<{ recordToolResults: { createdCount: number } }>(
        app,
        RECORD,
        { input: [toolResult(member.spaceId, crypto.randomUUID())] },
        member.token,
      );
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
      const who = await t.sql.query(
        'select pid, state, wait_event_type, left(query, 80) as query from pg_stat_activity where datname = current_database()',
      );
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

  it('R-OP-6 with the pool exhausted a request fails within the acquire timeout with SERVICE_UNAVAILABLE instead of hanging, and the pool recovers', async () => {
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
    // Retryable, and coded as such (R-OP-6): no connection came free in time, nothing was sent.
    expect(starved.status).toBe(503);
    expect(starved.errors).toEqual([expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 } })]);
    expect(JSON.stringify(starved)).not.toMatch(/knex|pool|acquir|TEAM_MAX/i);

    await blocker.release('commit');
    blocker = undefined;
    const held = await holder;
    expect(held.errors).toBeUndefined();
    expect(held.data).toMatchObject({ recordToolResults: { createdCount: 1 } });
    expect(await snapshotCount(t.sql, item.toolUseId)).toBe(1);

    await expectHealthy(t, member);
  });

  it('R-OP-6 every statement has a timeout: a request blocked past DB_STATEMENT_TIMEOUT_MS fails with a retryable SERVICE_UNAVAILABLE, nothing written, and the next succeeds', async () => {
    t = await createTestApp({ DB_STATEMENT_TIMEOUT_MS: '1500' });
    const { member, conversationId } = await memberWithConversation(t);

    blocker = await lockConversation(t.database.url, conversationId);
    const item = toolResult(member.spaceId, conversationId);
    const startedAt = Date.now();
    const res = await gql(t, RECORD, { input: [item] }, member.token, { 'x-request-id': 'req-statement-timeout-1' });
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(1300);
    expect(elapsed).toBeLessThan(4000);
    // The server's cancel is about the moment, not the request: coded and retryable, as the other deadlines (R-OP-6).
    expect(res.status).toBe(503);
    expect(res.errors).toEqual([expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 } })]);
    expect(JSON.stringify(res)).not.toMatch(/insert|canceling|statement|conversations|57014/i);
    // The lock is still held: the statement gave up, nothing waits any longer.
    const waiting = await t.sql.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    expect(waiting.rowCount).toBe(0);
    await blocker.release('commit');
    blocker = undefined;
    expect(await snapshotCount(t.sql, item.toolUseId)).toBe(0);

    await expectHealthy(t, member);
  });
});
