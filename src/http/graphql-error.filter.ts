import { Catch, HttpException, Logger, type ArgumentsHost } from '@nestjs/common';
import type { GqlExceptionFilter } from '@nestjs/graphql';
import { GraphQLError } from 'graphql';
import { currentRequestId } from '../observability/request-context';
import { AppError, ErrorCode } from '../common/errors/app-error';
import { databaseUnavailable } from '../database/database-unavailable';

/**
 * Maps coded errors to GraphQL errors with `extensions.code`, in one place: the service's own
 * errors, and a database that did not answer within the service's deadlines (SERVICE_UNAVAILABLE;
 * its HTTP 503 is decided once the whole result is known, `unavailableRetryAfter`). Anything else
 * is rethrown untouched and masked by `formatGraphqlError`.
 */
@Catch()
export class GraphqlErrorFilter implements GqlExceptionFilter {
  private readonly logger = new Logger('GraphQL');

  catch(thrown: unknown, host: ArgumentsHost): unknown {
    if (host.getType<string>() !== 'graphql') throw thrown;
    const unavailable = databaseUnavailable(thrown);
    if (unavailable)
      this.logger.warn({ msg: 'database did not answer in time', missed: unavailable.missed, requestId: currentRequestId() });
    const exception = unavailable?.error ?? thrown;
    if (exception instanceof AppError && exception.code === ErrorCode.RATE_LIMITED) {
      // Any RATE_LIMITED (a team over its share, a busy pool) is a 429 with Retry-After (R-TN-10).
      // Apollo turns `extensions.http` into the response's status and headers, and leaves it out of the body.
      const seconds = retryAfterSeconds(exception.details.retryAfterSeconds);
      const http = { status: 429, headers: new Map([['retry-after', String(seconds)]]) };
      return new GraphQLError(exception.message, {
        extensions: { code: exception.code, ...exception.details, retryAfterSeconds: seconds, http },
      });
    }
    if (exception instanceof AppError) {
      return new GraphQLError(exception.message, {
        extensions: { code: exception.code, ...exception.details },
      });
    }
    // Nest's own HTTP exceptions (e.g. a 413 from a pipe) keep their meaning.
    if (exception instanceof HttpException && exception.getStatus() === 413) {
      return new GraphQLError(exception.message, { extensions: { code: ErrorCode.PAYLOAD_TOO_LARGE } });
    }
    return exception;
  }
}

/** Whole seconds, at least 1 (as `Retry-After` wants them); 1 when the error names none. */
function retryAfterSeconds(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(1, Math.ceil(value)) : 1;
}
