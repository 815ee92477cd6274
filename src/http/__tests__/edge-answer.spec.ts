import { NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import pino from 'pino';
import { HttpEdge } from '../edge-answer';

const MARKER = 'payloadmark-9f1c';

/** The slice of Express' request and response the edge uses, recording what it answers. */
function exchange(method: string, url: string, options: { headersSent?: boolean } = {}) {
  const headers = new Map<string, unknown>([
    ['x-request-id', 'req-7'],
    ['content-type', 'text/plain'],
    ['content-encoding', 'gzip'],
  ]);
  const answer: { status?: number; body?: unknown } = {};
  const destroy = jest.fn();
  const res = {
    headersSent: options.headersSent ?? false,
    getHeaderNames: () => [...headers.keys()],
    getHeader: (name: string) => headers.get(name),
    removeHeader: (name: string) => headers.delete(name),
    setHeader: (name: string, value: unknown) => headers.set(name, value),
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(body: unknown) {
      answer.body = body;
      return this;
    },
  };
  const req = { method, originalUrl: url, path: url.split('?')[0], socket: { destroy } };
  return { req: req as unknown as Request, res: res as unknown as Response, answer, headers, destroy };
}

function edgeWithLog() {
  const lines: string[] = [];
  const edge = new HttpEdge('10mb', pino({ level: 'info' }, { write: (line: string) => lines.push(line) }));
  return { edge, lines };
}

describe('R-OP-4 the HTTP edge answer', () => {
  it('answers an unexpected error with a 500 naming the request id, and logs its kind and frames, never its message', () => {
    const { edge, lines } = edgeWithLog();
    const { req, res, answer, headers } = exchange('POST', '/graphql');
    edge.fail(
      req,
      res,
      Object.assign(new TypeError(`Cannot read "${MARKER}" of /work/main/src/x.ts\nFailing row contains (${MARKER})`), {
        code: 'E_BROKEN',
      }),
    );

    expect(answer).toEqual({
      status: 500,
      body: { errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-7' } }] },
    });
    // What the failed route set is gone; the request id stays.
    expect(Object.fromEntries(headers)).toEqual({ 'x-request-id': 'req-7', 'x-content-type-options': 'nosniff' });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 50,
      msg: 'unhandled error at the HTTP edge',
      requestId: 'req-7',
      method: 'POST',
      path: '/graphql',
      error: { name: 'TypeError', code: 'E_BROKEN' },
    });
    expect(lines[0]).toContain('edge-answer.spec.ts');
    expect(lines[0]).not.toContain(MARKER);
  });

  it('answers a client error without a log line (the access log has it)', () => {
    const { edge, lines } = edgeWithLog();
    const { req, res, answer } = exchange('POST', '/mcp');
    const parse = Object.assign(new SyntaxError('Unexpected end of JSON input'), {
      status: 400,
      expose: true,
      type: 'entity.parse.failed',
      body: `{"${MARKER}":`,
    });
    edge.fail(req, res, parse);
    expect(answer).toMatchObject({ status: 400, body: { jsonrpc: '2.0', error: { code: -32700 }, id: null } });
    expect(lines).toEqual([]);
  });

  it("answers a request nothing served — or Nest's catch-all 404 for it — with a NOT_FOUND that does not echo the query", () => {
    const { edge } = edgeWithLog();
    for (const thrown of [undefined, new NotFoundException('Cannot GET /nope?token=secret')]) {
      const { req, res, answer } = exchange('GET', '/nope?token=secret');
      edge.fail(req, res, thrown);
      expect(answer).toEqual({
        status: 404,
        body: {
          errors: [
            {
              message: 'Nothing answers GET /nope: the GraphQL API is POST /graphql, the MCP endpoint POST /mcp.',
              extensions: { code: 'NOT_FOUND' },
            },
          ],
        },
      });
    }
  });

  it('ends the connection when the response has begun: there is no answer left to give', () => {
    const { edge } = edgeWithLog();
    const { req, res, answer, destroy } = exchange('GET', '/metrics', { headersSent: true });
    edge.fail(req, res, new Error('late'));
    expect(destroy).toHaveBeenCalled();
    expect(answer).toEqual({});
  });
});
