/**
 * R-OP-3 in production: the service booted with NODE_ENV=production (and what production
 * requires: a token secret, and permission to use the test's database) has introspection off and
 * answers every error without a stack trace or a file path — a parse error, a validation error,
 * a service's coded error and an internal error alike. A replica of the same service in test
 * mode is the control: there introspection answers.
 */
import { expectErrorCode, gql, ok, type GraphqlResponse } from '../../support/graphql';
import { createReplica, createTestApp, identity, type Replica, type TestApp } from '../../support/test-app';

/** A stack frame or a source path, as a stack trace or a leaked error would carry them. */
const SOURCE_TRACE = /\.(ts|js|mjs|cjs):\d+|\/(src|node_modules|dist)\/|\bat \S+ \(|\n\s+at /;

function expectNoTrace(res: GraphqlResponse<unknown>): void {
  expect(res.errors?.length).toBeGreaterThan(0);
  for (const error of res.errors ?? []) {
    expect(error.extensions ?? {}).not.toHaveProperty('stacktrace');
    expect(error.extensions ?? {}).not.toHaveProperty('exception');
  }
  expect(JSON.stringify(res)).not.toMatch(SOURCE_TRACE);
}

describe('Production mode (e2e)', () => {
  let t: TestApp;
  let development: Replica;

  beforeAll(async () => {
    t = await createTestApp({ NODE_ENV: 'production', ALLOW_EMBEDDED_DB: 'true', ALLOWED_HOSTS: '127.0.0.1' });
    development = await createReplica(t, { NODE_ENV: 'test' });
  });
  afterAll(async () => {
    await development.close();
    await t.close();
  });

  it('R-OP-3 the app under test is the production configuration', () => {
    expect(t.config.isProduction).toBe(true);
  });

  it.each([
    ['__schema', '{ __schema { queryType { name } types { name } } }'],
    ['__type', '{ __type(name: "Query") { fields { name } } }'],
  ])(
    'R-OP-3 introspection (%s) is refused with GRAPHQL_VALIDATION_FAILED and no trace; a test-mode replica answers it',
    async (_name, query) => {
      const user = await identity(['memory:read']);
      const res = await gql(t, query, {}, user.token);
      expectErrorCode(res, 'GRAPHQL_VALIDATION_FAILED');
      expect(res.data ?? null).toBeNull();
      expectNoTrace(res);
      expect(await ok(development, query, {}, user.token)).toBeTruthy();
    },
  );

  it('R-OP-3 a validation error has no stack trace, no file path and no field suggestion', async () => {
    const user = await identity(['memory:read']);
    const res = await gql(t, '{ me { userI } }', {}, user.token);
    expectErrorCode(res, 'GRAPHQL_VALIDATION_FAILED');
    expectNoTrace(res);
    expect(JSON.stringify(res)).not.toContain('Did you mean');
    // The control: outside production the suggestion is given.
    expect(JSON.stringify(await gql(development, '{ me { userI } }', {}, user.token))).toContain('Did you mean');
  });

  it('R-OP-3 a parse error and a coded service error have no stack trace or file path', async () => {
    const admin = await identity(['admin']);
    const parse = await gql(t, '{ me { userId ', {}, admin.token);
    // graphql-armor's token limit parses the document first and reports a syntax error as a validation failure.
    expect(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED']).toContain(parse.errors?.[0]?.extensions?.code);
    expect(parse.errors?.[0]?.message).toMatch(/^Syntax Error/);
    expectNoTrace(parse);
    const coded = await gql(t, `mutation($s: ID!) { sealSpace(spaceId: $s) { status } }`, { s: crypto.randomUUID() }, admin.token);
    expectErrorCode(coded, 'NOT_FOUND');
    expectNoTrace(coded);
  });

  it('R-OP-3 an internal error is INTERNAL_SERVER_ERROR with a request id, no stack trace, SQL or file path', async () => {
    const user = await identity(['memory:read']);
    await ok(t, '{ me { userId } }', {}, user.token);
    await t.sql.query('alter table space_members rename to space_members_gone_prod');
    try {
      const res = await gql(t, '{ me { userId } }', undefined, user.token, { 'x-request-id': 'req-prod-1' });
      expect(expectErrorCode(res, 'INTERNAL_SERVER_ERROR', { requestId: 'req-prod-1' }).message).toBe('Internal server error.');
      expectNoTrace(res);
      expect(JSON.stringify(res)).not.toMatch(/space_members|select|relation/i);
    } finally {
      await t.sql.query('alter table space_members_gone_prod rename to space_members');
    }
    await ok(t, '{ me { userId } }', {}, user.token);
  });
});
