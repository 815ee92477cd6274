/** The public error codes of R-OP-4, carried in GraphQL `extensions.code`. */
export enum ErrorCode {
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  BAD_USER_INPUT = 'BAD_USER_INPUT',
  NOT_FOUND = 'NOT_FOUND',
  FEATURE_DISABLED = 'FEATURE_DISABLED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  /** The response would carry more payload than a limit allows; `extensions.limit` names it. */
  RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE',
  CONFLICT = 'CONFLICT',
  INTERNAL_SERVER_ERROR = 'INTERNAL_SERVER_ERROR',
  /** A request the HTTP edge cannot read: malformed JSON, a body that is not JSON. */
  BAD_REQUEST = 'BAD_REQUEST',
  /** A path that exists, asked with a method it does not answer. */
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  /** The team is over a per-replica limit (R-TN-10): HTTP 429 with `Retry-After`. */
  RATE_LIMITED = 'RATE_LIMITED',
  /** The database did not answer within a deadline the service keeps (R-OP-6): retry; HTTP 503 with `Retry-After` when nothing of the request was answered. */
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
}

/**
 * A failure the client can act on. Modules throw these (or their subclasses); one filter maps
 * them to GraphQL errors. The message says what to change; `details` are extra extensions
 * such as the offending field path.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'A valid bearer token is required.') {
    super(ErrorCode.UNAUTHENTICATED, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(ErrorCode.FORBIDDEN, message);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, id: string) {
    super(ErrorCode.NOT_FOUND, `${what} ${id} was not found.`);
  }
}

export class BadUserInputError extends AppError {
  constructor(field: string, message: string) {
    super(ErrorCode.BAD_USER_INPUT, message, { field });
  }
}

export class ConflictError extends AppError {
  constructor(message: string, field?: string) {
    super(ErrorCode.CONFLICT, message, field ? { field } : {});
  }
}

export class FeatureDisabledError extends AppError {
  constructor(flag: string) {
    super(ErrorCode.FEATURE_DISABLED, `The feature ${flag} is disabled for this team; an admin can enable it with setFeatureFlag.`);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string, field?: string) {
    super(ErrorCode.PAYLOAD_TOO_LARGE, message, field ? { field } : {});
  }
}

/**
 * The request asked for more payload (tool inputs and outputs) than one response may carry:
 * refused before the payloads are read. `limit` names the setting that refused it.
 */
export class ResponseTooLargeError extends AppError {
  constructor(maxBytes: number, requestedBytes: number) {
    super(
      ErrorCode.RESPONSE_TOO_LARGE,
      `This request would return ${requestedBytes} bytes of tool payloads; at most ${maxBytes} are served per request. ` +
        'Ask for fewer items (first/limit), use fewer aliases, or leave out toolOutput/toolInput and read each result by mem id with recallToolResult.',
      { limit: 'RESPONSE_MAX_PAYLOAD_BYTES', maxBytes, requestedBytes },
    );
  }
}

/** The replica cannot take the request now (R-TN-11): HTTP 429 with `Retry-After`; `limit` names the setting that bit. */
export class RateLimitedError extends AppError {
  constructor(
    readonly limit: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(ErrorCode.RATE_LIMITED, `${message}; retry after ${retryAfterSeconds} s.`, { limit, retryAfterSeconds });
  }
}

/**
 * The database did not answer in time (R-OP-6): a statement past its read timeout, a connection that
 * did not open or come free, or the request's database time used up. The request may be retried as it
 * is; each write it made either took effect in full or not at all.
 */
export class ServiceUnavailableError extends AppError {
  constructor(readonly retryAfterSeconds = 1) {
    super(
      ErrorCode.SERVICE_UNAVAILABLE,
      `The database did not answer in time; retry after ${retryAfterSeconds} s. ` +
        'Each write of this request either took effect in full or not at all.',
      { retryAfterSeconds },
    );
  }
}
