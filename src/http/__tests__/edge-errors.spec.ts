import { BadRequestException, HttpException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { edgeErrorBody, edgeErrorOf, houseErrorBody, isMcpPath, methodNotAllowed } from '../edge-errors';

/** An error as body-parser reports it (an http-errors instance: status, expose, type, and the text for a parse error). */
function bodyParserError(message: string, fields: Record<string, unknown>, kind: ErrorConstructor | SyntaxErrorConstructor = Error): Error {
  return Object.assign(new kind(message), { expose: true, ...fields });
}

function parseFailure(body: string): Error {
  let message = '';
  try {
    JSON.parse(body);
  } catch (error) {
    message = (error as Error).message;
  }
  return bodyParserError(message, { status: 400, type: 'entity.parse.failed', body }, SyntaxError);
}

describe('R-OP-4 edge error classification', () => {
  it('a malformed JSON body is BAD_REQUEST with the parser message, which keeps its position', () => {
    expect(edgeErrorOf(parseFailure('{bad'), '10mb')).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: "The request body is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
      parseError: "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    });
  });

  it.each([
    ['[1,]', 3],
    ['{"a":', 5],
    ['{"query": tru}', 10],
  ])('a parser message without a position (%s) gets the offset of the token where the body stops being JSON', (body, position) => {
    expect(edgeErrorOf(parseFailure(body), '10mb').parseError).toMatch(new RegExp(`\\(at position ${position}\\)$`));
  });

  it('a body nested too deep to locate the fault keeps the parser message alone', () => {
    const deep = edgeErrorOf(parseFailure('['.repeat(200_000)), '10mb');
    expect(deep).toMatchObject({ status: 400, parseError: 'Unexpected end of JSON input' });
  });

  it('JSON that is neither an object nor an array (body-parser refuses it) says what is expected', () => {
    const refused = bodyParserError(
      `Unexpected token '4', "42" is not valid JSON`,
      { status: 400, type: 'entity.parse.failed', body: ' 42' },
      SyntaxError,
    );
    expect(edgeErrorOf(refused, '10mb').parseError).toMatch(/\(at position 1: a JSON object or array is expected\)$/);
  });

  it("reads a body error the same when Nest's error layer has wrapped it", () => {
    const original = parseFailure('{bad');
    expect(edgeErrorOf(new BadRequestException(original.message, { cause: original }), '10mb')).toEqual(edgeErrorOf(original, '10mb'));
  });

  it('a body over the limit is PAYLOAD_TOO_LARGE naming the limit', () => {
    const tooLarge = bodyParserError('request entity too large', { status: 413, type: 'entity.too.large' });
    expect(edgeErrorOf(tooLarge, '64kb')).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is over the 64kb limit (HTTP_BODY_LIMIT).',
    });
  });

  it.each([
    [
      'an unsupported charset',
      bodyParserError('unsupported charset "LATIN9"', { status: 415, type: 'charset.unsupported' }),
      415,
      'BAD_REQUEST',
    ],
    ['a body that is not gzip', bodyParserError('incorrect header check', { status: 400 }), 400, 'BAD_REQUEST'],
    [
      'a path that is not percent-encoding',
      Object.assign(new URIError("Failed to decode param '%E0%A4%A'"), { status: 400 }),
      400,
      'BAD_REQUEST',
    ],
    ["a controller's NotFoundException", new NotFoundException('No such resource.'), 404, 'NOT_FOUND'],
    ['a 401 HttpException', new HttpException('Sign in.', 401), 401, 'UNAUTHENTICATED'],
  ])('a client error (%s) keeps its status and message, with the code of its status', (_label, error, status, code) => {
    expect(edgeErrorOf(error, '10mb')).toEqual({ status, code, message: error.message });
  });

  it.each([
    ['a plain Error', new Error('ENOENT: no such file /work/main/src/x.ts')],
    [
      'an error with a 4xx status nobody marked as safe to show',
      Object.assign(new Error('relation "secret" does not exist'), { status: 400 }),
    ],
    ['a 5xx http error', bodyParserError('stream encoding should not be set', { status: 500, expose: false })],
    ['a thrown string', 'boom'],
    ['nothing', null],
  ])('anything else (%s) is a 500 that says nothing but the status', (_label, thrown) => {
    expect(edgeErrorOf(thrown, '10mb')).toEqual({ status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
  });

  it('a deliberate 5xx (the readiness probe) keeps its status, not its report', () => {
    const notReady = new ServiceUnavailableException({
      status: 'error',
      error: { database: { status: 'down', message: 'connect ECONNREFUSED' } },
    });
    expect(edgeErrorOf(notReady, '10mb')).toEqual({ status: 503, code: 'INTERNAL_SERVER_ERROR', message: 'Service Unavailable' });
  });

  it('a 405 names the methods the path answers, for the Allow header too', () => {
    expect(methodNotAllowed('DELETE', '/graphql', ['GET', 'POST'])).toEqual({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: '/graphql does not answer DELETE; it answers GET, POST.',
      allow: ['GET', 'POST'],
    });
  });
});

describe('R-OP-4 R-MCP-1 edge error bodies', () => {
  const parse = edgeErrorOf(parseFailure('{bad'), '10mb');
  const internal = edgeErrorOf(new Error('secret'), '10mb');

  it('the house shape elsewhere: a GraphQL error with its code; a server error adds the request id', () => {
    expect(edgeErrorBody('/graphql', parse, 'req-1')).toEqual(houseErrorBody(parse.code, parse.message));
    expect(edgeErrorBody('/graphql', parse, 'req-1')).toEqual({
      errors: [{ message: parse.message, extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(edgeErrorBody('/metrics', internal, 'req-1')).toEqual({
      errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-1' } }],
    });
  });

  it('JSON-RPC on /mcp: -32700 Parse error with the position, -32600 for another refusal, -32603 naming the request id', () => {
    expect(edgeErrorBody('/mcp', parse, 'req-1')).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32700,
        message: "Parse error: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
        data: { code: 'BAD_REQUEST' },
      },
      id: null,
    });
    const tooLarge = edgeErrorOf(bodyParserError('too large', { status: 413, type: 'entity.too.large' }), '1kb');
    expect(edgeErrorBody('/mcp', tooLarge, 'req-1')).toMatchObject({
      error: { code: -32600, data: { code: 'PAYLOAD_TOO_LARGE' } },
      id: null,
    });
    expect(edgeErrorBody('/mcp', internal, 'req-1')).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32603,
        message: 'Internal server error (request id req-1).',
        data: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-1' },
      },
      id: null,
    });
  });

  it.each([
    ['/mcp', true],
    ['/mcp/', true],
    ['/MCP', true],
    ['/mcp/anything', true],
    ['/mcpx', false],
    ['/graphql', false],
    ['/a/mcp', false],
  ])('%s is the MCP endpoint: %s', (path, mcp) => {
    expect(isMcpPath(path)).toBe(mcp);
  });
});
