import request from 'supertest';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, identity, type TestApp } from '../../support/test-app';

describe('Operations (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '1mb' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('R-OP-1 /health answers and /health/ready checks the database', async () => {
    await request(t.app.getHttpServer()).get('/health').expect(200, { status: 'ok' });
    const ready = await request(t.app.getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it('R-OP-1 /metrics serves Prometheus text', async () => {
    const res = await request(t.app.getHttpServer()).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it("R-OP-1 every response carries a request id, the caller's when well-formed", async () => {
    const mine = await request(t.app.getHttpServer()).get('/health').set('x-request-id', 'trace-123');
    expect(mine.headers['x-request-id']).toBe('trace-123');
    const made = await request(t.app.getHttpServer()).get('/health').set('x-request-id', 'bad id with spaces');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("R-TR-5 a request body over Express' 100 kB default is accepted", async () => {
    const admin = await identity(['admin']);
    const res = await gql(t, `mutation($n: String!) { createSpace(name: $n) { id } }`, { n: 'x'.repeat(150_000) }, admin.token);
    expect(res.status).toBe(200);
    expectErrorCode(res, 'BAD_USER_INPUT', { field: 'name' });
  });

  it('R-TR-5 a body over the configured limit is PAYLOAD_TOO_LARGE naming the limit', async () => {
    const admin = await identity(['admin']);
    const res = await gql(t, `mutation($n: String!) { createSpace(name: $n) { id } }`, { n: 'x'.repeat(1_100_000) }, admin.token);
    expect(res.status).toBe(413);
    expect(expectErrorCode(res, 'PAYLOAD_TOO_LARGE').message).toContain('1mb');
  });

  it('R-OP-5 CSRF prevention refuses a simple GET query without a preflight header', async () => {
    const user = await identity(['memory:read']);
    const res = await request(t.app.getHttpServer())
      .get('/graphql')
      .set('authorization', `Bearer ${user.token}`)
      .query({ query: '{ me { userId } }' });
    expect(res.status).toBe(400);
  });

  it('R-OP-5 HTTP batching is off', async () => {
    const admin = await identity(['admin']);
    const res = await request(t.app.getHttpServer())
      .post('/graphql')
      .set('authorization', `Bearer ${admin.token}`)
      .send([{ query: '{ me { userId } }' }, { query: '{ me { userId } }' }]);
    expect(res.status).toBe(400);
  });

  it('R-OP-3 a query with more aliases than the limit (15) is refused before execution; 15 run', async () => {
    const admin = await identity(['admin']);
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: me { userId }`).join(' ');
    expect(Object.keys(await ok(t, `{ ${aliases(15)} }`, {}, admin.token))).toHaveLength(15);
    const res = await gql(t, `{ ${aliases(16)} }`, {}, admin.token);
    expectErrorCode(res, 'GRAPHQL_VALIDATION_FAILED');
    expect(res.data ?? null).toBeNull();
  });

  // `__type` chains are the deepest selections the schema has (`__schema` is exempt from the rule).
  const deepQuery = (depth: number) =>
    `{ __type(name: "Query") { fields { type { ${'ofType { '.repeat(depth - 4)}name${' }'.repeat(depth - 4)} } } } }`;

  it('R-OP-3 depth: a query at the limit (10) runs; one level deeper is GRAPHQL_VALIDATION_FAILED naming the limit', async () => {
    const admin = await identity(['admin']);
    expect(t.config.graphql.maxDepth).toBe(10);
    const atLimit = await ok<{ __type: { fields: unknown[] } }>(t, deepQuery(10), {}, admin.token);
    expect(atLimit.__type.fields.length).toBeGreaterThan(0);
    const over = await gql(t, deepQuery(11), {}, admin.token);
    expect(expectErrorCode(over, 'GRAPHQL_VALIDATION_FAILED').message).toContain('Query depth limit of 10 exceeded, found 11');
    expect(over.data ?? null).toBeNull();
  });

  // graphql-armor's cost: object 2, scalar 1, ×1.5 per level, × `first`; one history page of
  // `first: n` selecting `edges { node { id } }` costs (2 + 1.5·(2 + 1.5·(2 + 1.5·1)))·n = 12.875·n.
  const pages = (...sizes: number[]) =>
    `{ ${sizes.map((n, i) => `p${i}: toolResultHistory(first: ${n}) { edges { node { id } } }`).join(' ')} }`;

  it('R-OP-3 cost: pages of 100+100+100+88 (4995.5) run; 100+100+100+89 (5008.375) is GRAPHQL_VALIDATION_FAILED naming the limit', async () => {
    const user = await identity(['memory:read']);
    expect(t.config.graphql.maxCost).toBe(5000);
    const atLimit = await ok<Record<string, { edges: unknown[] }>>(t, pages(100, 100, 100, 88), {}, user.token);
    expect(Object.keys(atLimit)).toEqual(['p0', 'p1', 'p2', 'p3']);
    const over = await gql(t, pages(100, 100, 100, 89), {}, user.token);
    expect(expectErrorCode(over, 'GRAPHQL_VALIDATION_FAILED').message).toContain('Query Cost limit of 5000 exceeded, found 5008.375');
    expect(over.data ?? null).toBeNull();
  });

  it('R-OP-3 an internal failure is masked: INTERNAL_SERVER_ERROR with a request id and no SQL', async () => {
    const user = await identity(['memory:read']);
    await gql(t, '{ me { userId } }', {}, user.token);
    await t.sql.query('alter table space_members rename to space_members_gone');
    try {
      const res = await gql(t, '{ me { userId } }', undefined, user.token, { 'x-request-id': 'req-masked-1' });
      const error = expectErrorCode(res, 'INTERNAL_SERVER_ERROR', { requestId: 'req-masked-1' });
      expect(error.message).toBe('Internal server error.');
      expect(JSON.stringify(res)).not.toMatch(/space_members|select|stack/i);
    } finally {
      await t.sql.query('alter table space_members_gone rename to space_members');
    }
    // The process and the pool survive: the next request succeeds.
    await ok(t, '{ me { userId } }', {}, user.token);
  });
});
