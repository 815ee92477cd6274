import { formatGraphqlError } from '../format-graphql-error';

describe('formatGraphqlError', () => {
  const log = { error: jest.fn() };

  it('R-OP-3 masks an unexpected error: no message, SQL or stack, only the code and request id', () => {
    const original = new Error('duplicate key value violates unique constraint "users_pkey"');
    const formatted = formatGraphqlError(
      { message: original.message, path: ['me'], extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['at x'] } },
      original,
      'req-1',
      log,
    );
    expect(formatted).toEqual({
      message: 'Internal server error.',
      path: ['me'],
      locations: undefined,
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-1' },
    });
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ err: original, requestId: 'req-1' }), expect.any(String));
  });

  it('R-OP-4 keeps coded errors with their extensions and drops any stack trace', () => {
    const formatted = formatGraphqlError(
      { message: 'spaceId must be a UUID', extensions: { code: 'BAD_USER_INPUT', field: 'spaceId', stacktrace: ['at y'] } },
      undefined,
      'req-2',
      log,
    );
    expect(formatted).toEqual({ message: 'spaceId must be a UUID', extensions: { code: 'BAD_USER_INPUT', field: 'spaceId' } });
  });

  it('R-OP-3 masks an error whose code is not one of ours', () => {
    const formatted = formatGraphqlError({ message: 'boom', extensions: { code: 'SOMETHING_ELSE' } }, new Error('boom'), undefined, log);
    expect(formatted.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(formatted.message).toBe('Internal server error.');
  });
});
