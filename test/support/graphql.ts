import type { INestApplication } from '@nestjs/common';
import request from 'supertest';

export interface GraphqlError {
  message: string;
  path?: string[];
  extensions?: Record<string, unknown>;
}

export interface GraphqlResponse<T = Record<string, unknown>> {
  /** The HTTP status (GraphQL errors mostly come with 200). */
  status: number;
  data?: T | null;
  errors?: GraphqlError[];
}

/** What a request goes to: a test app, or another instance of the service on the same database. */
export interface GraphqlTarget {
  readonly app: INestApplication;
}

/**
 * POSTs one request to /graphql as a client would and answers the body as it came, errors
 * included: for tests that look at the errors. `headers` adds to the bearer token (e.g. x-request-id).
 */
export async function gql<T = Record<string, unknown>>(
  target: GraphqlTarget,
  query: string,
  variables?: Record<string, unknown>,
  token?: string,
  headers: Record<string, string> = {},
): Promise<GraphqlResponse<T>> {
  const req = request(target.app.getHttpServer()).post('/graphql').set('content-type', 'application/json');
  if (token) req.set('authorization', `Bearer ${token}`);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  const res = await req.send({ query, variables });
  return { status: res.status, ...(res.body as object) };
}

/** The data of a request that must succeed; any error fails the test, naming the operation and printing the errors. */
export async function ok<T = Record<string, unknown>>(
  target: GraphqlTarget,
  query: string,
  variables?: Record<string, unknown>,
  token?: string,
): Promise<T> {
  const res = await gql<T>(target, query, variables, token);
  if (res.errors !== undefined || res.data === undefined || res.data === null) {
    throw new Error(
      `expected ${operation(query)} to succeed, got HTTP ${res.status} with\n${JSON.stringify({ errors: res.errors, data: res.data }, null, 2)}`,
    );
  }
  return res.data;
}

/**
 * The first error is `code` (and has these other extensions, e.g. the `field`); returns it. Without
 * errors the test fails showing the data that came instead.
 */
export function expectErrorCode(res: GraphqlResponse<unknown>, code: string, extensions: Record<string, unknown> = {}): GraphqlError {
  const first = res.errors?.[0];
  if (first === undefined)
    throw new Error(`expected the error ${code}, got HTTP ${res.status} without errors and the data ${brief(JSON.stringify(res.data))}`);
  // The message on both sides matches itself: it is there so that a mismatch prints it beside the code.
  expect(first).toMatchObject({ message: first.message, extensions: { code, ...extensions } });
  return first;
}

/** The query on one line, shortened: enough to tell which request of a test failed. */
function operation(query: string): string {
  return brief(query.replace(/\s+/g, ' ').trim());
}

function brief(text: string | undefined, max = 300): string {
  if (text === undefined) return 'undefined';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
