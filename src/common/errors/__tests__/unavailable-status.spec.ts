import type { GraphQLFormattedError } from 'graphql';
import { unavailableRetryAfter } from '../unavailable-status';

const unavailable = (field: string, retryAfterSeconds: unknown = 1): GraphQLFormattedError => ({
  message: 'The database did not answer in time.',
  path: [field],
  extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds },
});

describe('unavailableRetryAfter: when a GraphQL result goes out as HTTP 503 (R-OP-6)', () => {
  it('R-OP-6 nothing answered and every error SERVICE_UNAVAILABLE: 503 with the longest Retry-After', () => {
    expect(unavailableRetryAfter({ data: null, errors: [unavailable('me')] })).toBe(1);
    expect(unavailableRetryAfter({ errors: [unavailable('me')] })).toBe(1);
    // Nullable root fields each failed: nothing was answered either.
    expect(unavailableRetryAfter({ data: { a: null, b: null }, errors: [unavailable('a', 2), unavailable('b', 0.4)] })).toBe(2);
  });

  it('R-OP-6 a root field answered: the partial result stays a 200', () => {
    expect(unavailableRetryAfter({ data: { a: null, b: { id: 'x' } }, errors: [unavailable('a')] })).toBeNull();
    // A root field that answered null without an error was answered.
    expect(unavailableRetryAfter({ data: { a: null, b: null }, errors: [unavailable('a')] })).toBeNull();
  });

  it('R-OP-6 another error beside it, or no error at all: not a 503', () => {
    const internal: GraphQLFormattedError = {
      message: 'Internal server error.',
      path: ['b'],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
    expect(unavailableRetryAfter({ data: null, errors: [unavailable('a'), internal] })).toBeNull();
    expect(unavailableRetryAfter({ data: { a: 1 } })).toBeNull();
    expect(unavailableRetryAfter({ data: null, errors: [] })).toBeNull();
  });

  it('R-OP-6 Retry-After is whole seconds, at least 1', () => {
    expect(unavailableRetryAfter({ data: null, errors: [unavailable('a', 2.2)] })).toBe(3);
    expect(unavailableRetryAfter({ data: null, errors: [unavailable('a', 'soon')] })).toBe(1);
  });
});
