import { Catch, HttpException, type ArgumentsHost } from '@nestjs/common';
import type { GqlExceptionFilter } from '@nestjs/graphql';
import { GraphQLError } from 'graphql';
import { AppError, ErrorCode } from './app-error';

/**
 * Maps coded errors to GraphQL errors with `extensions.code`, in one place. Anything else is
 * rethrown untouched and masked by `formatGraphqlError`.
 */
@Catch()
export class GraphqlErrorFilter implements GqlExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType<string>() !== 'graphql') throw exception;
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
