import { Writable } from 'node:stream';
import pino from 'pino';
import { loggableError, NestPinoLogger } from '../logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: new NestPinoLogger(pino({ level: 'trace' }, stream)) };
}

describe('NestPinoLogger', () => {
  it('R-OP-1 keeps structured fields as JSON fields instead of "[object Object]"', () => {
    const { lines, logger } = capture();
    logger.error({ msg: 'unhandled error in GraphQL operation', requestId: 'r-1', path: ['me'] }, undefined, 'GraphQL');
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'unhandled error in GraphQL operation',
      requestId: 'r-1',
      path: ['me'],
      context: 'GraphQL',
    });
  });

  it('R-OP-1 logs text messages and errors as one JSON line each', () => {
    const { lines, logger } = capture();
    logger.log('started', 'Boot');
    logger.warn(new Error('disk nearly full'), 'Disk');
    expect(lines[0]).toMatchObject({ level: 30, msg: 'started', context: 'Boot' });
    expect(lines[1]).toMatchObject({ level: 40, msg: 'disk nearly full', context: 'Disk', err: { message: 'disk nearly full' } });
  });
});

describe('loggableError', () => {
  it("R-OP-1 keeps a driver error's kind, SQLSTATE, message and object names, never its detail (the failing row) or context", () => {
    const error = Object.assign(new Error('new row for relation "t" violates check constraint "c"'), {
      code: '23514',
      severity: 'ERROR',
      table: 't',
      constraint: 'c',
      detail: 'Failing row contains (secret payload).',
      where: 'SQL statement "insert … secret"',
      hint: 'secret',
      cause: Object.assign(new Error('inner'), { detail: 'secret again' }),
    });
    const logged = loggableError(error);
    expect(logged).toMatchObject({
      type: 'Error',
      code: '23514',
      severity: 'ERROR',
      table: 't',
      constraint: 'c',
    });
    expect(logged.message).toBe(`${error.message}: inner`);
    expect(JSON.stringify(logged)).not.toContain('secret');
  });
});
