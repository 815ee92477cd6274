/**
 * The codes a RecallLedgerError carries: the service's (R-OP-4, in `extensions.code`), the
 * request codes of Apollo (`GRAPHQL_VALIDATION_FAILED`, …), `NETWORK_ERROR` when no answer came,
 * and `HTTP_<status>` for an answer that is not a GraphQL response.
 */
export type RecallLedgerErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'FEATURE_DISABLED'
  | 'PAYLOAD_TOO_LARGE'
  | 'RESPONSE_TOO_LARGE'
  | 'CONFLICT'
  // Retryable after `Retry-After`: the replica cannot take the request now (429), the database did not answer in time (503).
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR'
  | 'NETWORK_ERROR'
  | `HTTP_${number}`
  // Any other code the server sends; keeps the names above as suggestions in an editor.
  | (string & {});

/** One GraphQL error of a response. */
export interface GraphqlErrorDetail {
  message: string;
  code: RecallLedgerErrorCode;
  /** The input the error is about (`extensions.field`), e.g. `name` or `input.0.createdAt`. */
  field: string | null;
  /** The response path of the field that failed. */
  path: readonly (string | number)[] | null;
}

export interface RecallLedgerErrorInit {
  code: RecallLedgerErrorCode;
  message: string;
  field?: string | null;
  requestId?: string | null;
  errors?: readonly GraphqlErrorDetail[];
  data?: unknown;
  cause?: unknown;
}

/** A request that did not give data: `code`, `field` and `message` are the first GraphQL error's. */
export class RecallLedgerError extends Error {
  override readonly name = 'RecallLedgerError';
  readonly code: RecallLedgerErrorCode;
  readonly field: string | null;
  /** The response's `x-request-id`, to quote to an operator (their logs carry it); null without a response. */
  readonly requestId: string | null;
  /** Every GraphQL error of the response; empty for a network failure or an answer that is not GraphQL. */
  readonly errors: readonly GraphqlErrorDetail[];
  /** The partial data that came with the errors, or null. */
  readonly data: unknown;

  constructor(init: RecallLedgerErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.field = init.field ?? null;
    this.requestId = init.requestId ?? null;
    this.errors = init.errors ?? [];
    this.data = init.data ?? null;
  }
}
