import {
  CreateSpaceDocument,
  MeDocument,
  RecallBlockDocument,
  createRecallLedgerClient,
  type RecallLedgerClient,
} from '../../clients/typescript/src';
import { rejection } from '../support/typed-client';

/** A fake `fetch` (the network is outside the process here): answers `respond`'s response and records each call. */
function fakeFetch(respond: () => Response | Promise<Response>) {
  const calls: { input: Parameters<typeof globalThis.fetch>[0]; init: RequestInit }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    calls.push({ input, init: init ?? {} });
    return respond();
  };
  return { fetch, calls };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const ME = { me: { userId: 'u1', teamId: 't1', scopes: ['admin'], spaces: [] } };

describe('typed client: requests (issue 23)', () => {
  it('R-TN-3 POSTs the operation as JSON with the bearer token and answers its data', async () => {
    const { fetch, calls } = fakeFetch(() => json({ data: ME }));
    const client = createRecallLedgerClient({ url: 'https://recall.test/graphql', token: 'tok-1', fetch });

    await expect(client.request(MeDocument)).resolves.toEqual(ME);
    expect(calls).toHaveLength(1);
    const [{ input, init }] = calls;
    expect(input).toBe('https://recall.test/graphql');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer tok-1' });
    const body = JSON.parse(init.body as string);
    expect(body.query).toContain('query Me');
    expect(body.variables).toBeUndefined();
  });

  it('R-TN-3 asks a token function before each request, so a page can change the token', async () => {
    const { fetch, calls } = fakeFetch(() => json({ data: { createSpace: { id: 's1' } } }));
    let token = 'first';
    const client = createRecallLedgerClient({ url: '/graphql', token: () => token, fetch });

    await client.request(CreateSpaceDocument, { name: 'research' });
    token = 'second';
    await client.request(CreateSpaceDocument, { name: 'ops' });
    expect(calls.map((c) => (c.init.headers as Record<string, string>).authorization)).toEqual(['Bearer first', 'Bearer second']);
    expect(calls.map((c) => JSON.parse(c.init.body as string).variables)).toEqual([{ name: 'research' }, { name: 'ops' }]);
  });

  it('R-TN-3 types the variables: required when the operation has required ones, absent when it has none', () => {
    // Compile-time only (`npm run typecheck`): the calls below are never made.
    const typesOnly = (client: RecallLedgerClient) => [
      client.request(MeDocument),
      client.request(RecallBlockDocument, { conversationId: 'c1' }),
      // @ts-expect-error createSpace's `name` is required
      client.request(CreateSpaceDocument),
      // @ts-expect-error `name` is a string
      client.request(CreateSpaceDocument, { name: 1 }),
    ];
    expect(typesOnly).toBeInstanceOf(Function);
  });
});

describe('typed client: errors (issue 23, R-OP-4)', () => {
  it('R-OP-4 a GraphQL error becomes a RecallLedgerError with its code, field, the request id, every error and the partial data', async () => {
    const errors = [
      {
        message: 'A space name must be 1 to 100 characters after trimming.',
        path: ['createSpace'],
        extensions: { code: 'BAD_USER_INPUT', field: 'name' },
      },
      { message: 'Second.', path: ['other', 0], extensions: { code: 'FORBIDDEN' } },
    ];
    const { fetch } = fakeFetch(() => json({ data: { createSpace: null, other: [] }, errors }, 200, { 'x-request-id': 'req-42' }));
    const client = createRecallLedgerClient({ url: '/graphql', token: 't', fetch });

    const error = await rejection(client.request(CreateSpaceDocument, { name: ' ' }));
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'RecallLedgerError',
      code: 'BAD_USER_INPUT',
      field: 'name',
      message: 'A space name must be 1 to 100 characters after trimming.',
      requestId: 'req-42',
      data: { createSpace: null, other: [] },
    });
    expect(error.errors).toEqual([
      { message: errors[0].message, code: 'BAD_USER_INPUT', field: 'name', path: ['createSpace'] },
      { message: 'Second.', code: 'FORBIDDEN', field: null, path: ['other', 0] },
    ]);
  });

  it('R-OP-4 UNAUTHENTICATED without data: code from extensions, field and data null', async () => {
    const { fetch } = fakeFetch(() =>
      json({ errors: [{ message: 'A valid bearer token is required.', extensions: { code: 'UNAUTHENTICATED' } }] }, 200, {
        'x-request-id': 'r1',
      }),
    );
    const error = await rejection(createRecallLedgerClient({ url: '/graphql', token: '', fetch }).request(MeDocument));
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', field: null, data: null, requestId: 'r1' });
    expect(error.errors[0].path).toBeNull();
  });

  it('R-OP-4 a GraphQL error without a code (Apollo answering HTTP 400) carries the HTTP status as its code', async () => {
    const { fetch } = fakeFetch(() => json({ errors: [{ message: 'Bad request.' }] }, 400));
    const error = await rejection(createRecallLedgerClient({ url: '/graphql', token: 't', fetch }).request(MeDocument));
    expect(error).toMatchObject({ code: 'HTTP_400', message: 'Bad request.', requestId: null });
  });

  it('R-OP-4 an answer that is not a GraphQL response is HTTP_<status>, quoting the start of the body', async () => {
    const { fetch } = fakeFetch(
      () =>
        new Response('<html><body>502 Bad Gateway</body></html>', {
          status: 502,
          headers: { 'content-type': 'text/html', 'x-request-id': 'gw-1' },
        }),
    );
    const error = await rejection(createRecallLedgerClient({ url: '/graphql', token: 't', fetch }).request(MeDocument));
    expect(error).toMatchObject({ code: 'HTTP_502', requestId: 'gw-1', errors: [], data: null });
    expect(error.message).toBe(
      'POST /graphql answered HTTP 502 with a body that is not a GraphQL response (text/html): <html><body>502 Bad Gateway</body></html>',
    );
  });

  it('R-OP-4 JSON that is neither data nor errors is HTTP_<status> too', async () => {
    const { fetch } = fakeFetch(() => json({ status: 'ok' }));
    const error = await rejection(createRecallLedgerClient({ url: '/graphql', token: 't', fetch }).request(MeDocument));
    expect(error.code).toBe('HTTP_200');
  });

  it('R-OP-4 null data without errors is HTTP_<status>, saying so', async () => {
    const { fetch } = fakeFetch(() => json({ data: null }, 500));
    const error = await rejection(createRecallLedgerClient({ url: '/graphql', token: 't', fetch }).request(MeDocument));
    expect(error).toMatchObject({ code: 'HTTP_500', message: 'POST /graphql answered HTTP 500 without data or errors.' });
  });

  it('R-OP-4 a network failure is NETWORK_ERROR naming the URL and the cause', async () => {
    const cause = new TypeError('fetch failed');
    const { fetch } = fakeFetch(() => Promise.reject(cause));
    const error = await rejection(createRecallLedgerClient({ url: 'http://127.0.0.1:9/graphql', token: 't', fetch }).request(MeDocument));
    expect(error).toMatchObject({
      code: 'NETWORK_ERROR',
      message: 'POST http://127.0.0.1:9/graphql failed: fetch failed',
      requestId: null,
      errors: [],
    });
    expect(error.cause).toBe(cause);
  });

  it('R-OP-4 a token function that throws rejects with its own error, before any request', async () => {
    const { fetch, calls } = fakeFetch(() => json({ data: ME }));
    const client = createRecallLedgerClient({
      url: '/graphql',
      token: () => {
        throw new Error('signed out');
      },
      fetch,
    });
    await expect(client.request(MeDocument)).rejects.toThrow('signed out');
    expect(calls).toHaveLength(0);
  });
});
