import type { GraphQLFormattedError } from 'graphql';
import { ErrorCode } from './app-error';

/** Codes produced by Apollo and graphql-js for a malformed request; they are safe to show. */
const REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);
const PUBLIC_CODES = new Set<string>([...Object.values(ErrorCode), ...REQUEST_CODES]);

export interface ErrorLog {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Keeps coded errors as they are and masks everything else: no SQL, stack or internal message
 * reaches a client, only `INTERNAL_SERVER_ERROR` and the request id to quote to an operator.
 */
export function formatGraphqlError(
  formatted: GraphQLFormattedError,
  original: unknown,
  requestId: string | undefined,
  log: ErrorLog,
): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  const isPublic = typeof code === 'string' && PUBLIC_CODES.has(code) && code !== (ErrorCode.INTERNAL_SERVER_ERROR as string);
  if (isPublic) {
    const { stacktrace: _stack, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  }
  log.error({ err: original, requestId, path: formatted.path }, 'unhandled error in GraphQL operation');
  return {
    message: 'Internal server error.',
    path: formatted.path,
    locations: formatted.locations,
    extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR, requestId },
  };
}
