import type { GraphQLFormattedError } from 'graphql';
import { ErrorCode } from './app-error';

/** What the status decision reads of a GraphQL result. */
export interface AnsweredResult {
  readonly data?: Readonly<Record<string, unknown>> | null;
  readonly errors?: readonly GraphQLFormattedError[];
}

/**
 * The `Retry-After` (whole seconds) of a GraphQL result that is to go out as HTTP 503: every error
 * is SERVICE_UNAVAILABLE and nothing of the request was answered — no data, or an error on each of
 * its root fields. Null otherwise: a partial answer stays a 200, as does a mix with other errors.
 */
export function unavailableRetryAfter(result: AnsweredResult): number | null {
  const errors = result.errors ?? [];
  if (errors.length === 0 || !errors.every((error) => error.extensions?.code === ErrorCode.SERVICE_UNAVAILABLE)) return null;
  if (result.data) {
    const failed = new Set(errors.map((error) => error.path?.[0]));
    if (!Object.keys(result.data).every((field) => failed.has(field))) return null;
  }
  return Math.max(1, ...errors.map((error) => wholeSeconds(error.extensions?.retryAfterSeconds)));
}

function wholeSeconds(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.ceil(value) : 1;
}
