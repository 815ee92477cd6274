import { Catch, HttpException, type ArgumentsHost } from '@nestjs/common';
import type { GqlExceptionFilter } from '@nestjs/graphql';
import { GraphQLError } from 'graphql';
import { AppError, ErrorCode, RateLimitedError } from './app-error';

/**
 * Maps coded errors to GraphQL errors with `extensions.code`, in one place. Anything else is
 * rethrown untouched and masked by `formatGraphqlError`.
 */
@Catch()
export class GraphqlErrorFilter implements GqlExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType<string>() !== 'graphql') throw exception;
    if (exception instanceof RateLimitedError) {
      // Apollo turns `extensions.http` into the response's status and headers, and leaves it out of the body.
      const http = { status: 429, headers: new Map([['retry-after', String(exception.retryAfterSeconds)]]) };
      return new GraphQLError(exception.message, { extensions: { code: exception.code, ...exception.details, http } });
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
