import type { ArgumentsHost } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import { AppError, ErrorCode, RateLimitedError } from '../app-error';
import { GraphqlErrorFilter } from '../graphql-error.filter';

const graphqlHost = { getType: () => 'graphql' } as unknown as ArgumentsHost;

function mapped(exception: unknown): GraphQLError {
  return new GraphqlErrorFilter().catch(exception, graphqlHost) as GraphQLError;
}

describe('GraphqlErrorFilter RATE_LIMITED (R-TN-10)', () => {
  it('R-TN-10 a request the replica cannot take now is HTTP 429 with Retry-After, the limit named', () => {
    const error = mapped(new RateLimitedError('ADMISSION_QUEUE_WAIT_MS', 'This server is busy', 3));
    expect(error.message).toBe('This server is busy; retry after 3 s.');
    const { http, ...extensions } = error.extensions as { http: { status: number; headers: Map<string, string> } };
    expect(extensions).toEqual({ code: 'RATE_LIMITED', limit: 'ADMISSION_QUEUE_WAIT_MS', retryAfterSeconds: 3 });
    expect(http.status).toBe(429);
    expect([...http.headers]).toEqual([['retry-after', '3']]);
  });

  it('R-TN-10 any RATE_LIMITED is a 429: whole seconds, 1 when the error names none', () => {
    const named = mapped(new AppError(ErrorCode.RATE_LIMITED, 'busy', { retryAfterSeconds: 0.2 }));
    expect(named.extensions).toMatchObject({ retryAfterSeconds: 1, http: { status: 429 } });
    const unnamed = mapped(new AppError(ErrorCode.RATE_LIMITED, 'busy'));
    expect((unnamed.extensions.http as { headers: Map<string, string> }).headers.get('retry-after')).toBe('1');
  });

  it('R-TN-10 other coded errors keep HTTP 200 (no http extension)', () => {
    expect(mapped(new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'too big')).extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
