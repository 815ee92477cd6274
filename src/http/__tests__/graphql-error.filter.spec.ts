import { type ArgumentsHost, Logger } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import { AppError, ErrorCode, RateLimitedError } from '../../common/errors/app-error';
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

describe('GraphqlErrorFilter SERVICE_UNAVAILABLE (R-OP-6)', () => {
  const readTimeout = () => new Error('select 1 - Query read timeout');
  let warned: jest.SpyInstance;
  beforeEach(() => (warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined)));
  afterEach(() => warned.mockRestore());

  it('R-OP-6 the operator sees which deadline was missed, never the driver message (it quotes the statement)', () => {
    mapped(readTimeout());
    expect(warned).toHaveBeenCalledWith({ msg: 'database did not answer in time', missed: 'statement', requestId: undefined });
  });

  it('R-OP-6 a database deadline the service kept is SERVICE_UNAVAILABLE with retryAfterSeconds, no statement text', () => {
    for (const fault of [
      readTimeout(),
      new Error('timeout expired'),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
      Object.assign(new Error('deadline'), { name: 'RequestDatabaseTimeError' }),
    ]) {
      const error = mapped(fault);
      expect(error.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 });
      expect(error.message).toMatch(/^The database did not answer in time; retry after 1 s\./);
      expect(error.message).not.toMatch(/select|Query read timeout|Knex/);
    }
  });

  it('R-OP-6 its HTTP status waits for the whole result (no http extension here): a partial answer stays a 200', () => {
    expect(mapped(readTimeout()).extensions).not.toHaveProperty('http');
  });

  it('R-OP-6 a server-side statement timeout (57014) is SERVICE_UNAVAILABLE too, its statement not quoted', () => {
    const canceled = Object.assign(new Error('select pg_sleep(20) - canceling statement due to statement timeout'), { code: '57014' });
    const error = mapped(canceled);
    expect(error.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(error.message).not.toMatch(/select|canceling|timeout/);
  });

  it('R-OP-6 other driver failures are left to the masking (a killed backend)', () => {
    const killed = new Error('Connection terminated unexpectedly');
    expect(mapped(killed)).toBe(killed);
  });
});
