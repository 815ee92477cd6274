import { missedDeadline, transientFault } from '../transient-fault';

/** An error as the pg driver raises it for a server error: an Error with the SQLSTATE in `code`. */
const pgError = (code: string, message = 'server error') => Object.assign(new Error(message), { code });

describe('transientFault', () => {
  it.each([
    ['40001', 'serialization failure'],
    ['40P01', 'deadlock victim'],
    ['55P03', 'lock timeout'],
    ['57014', 'statement timeout / cancel'],
    ['57P03', 'server not accepting connections yet'],
    ['53300', 'too many connections'],
  ])('R-FB-2 SQLSTATE %s (%s) is transient, and the statement did not take effect', (code) => {
    expect(transientFault(pgError(code))).toBe('ROLLED_BACK');
  });

  it.each([
    ['57P01', 'backend terminated'],
    ['57P02', 'crash shutdown'],
    ['08006', 'connection failure'],
    ['08003', 'connection does not exist'],
    ['08000', 'connection exception'],
  ])('R-FB-2 SQLSTATE %s (%s) is transient, but a write may have committed', (code) => {
    expect(transientFault(pgError(code))).toBe('OUTCOME_UNKNOWN');
  });

  it('R-FB-2 a lost or refused socket, a connection the driver saw end, and an empty pool are transient', () => {
    expect(transientFault(pgError('ECONNRESET'))).toBe('OUTCOME_UNKNOWN');
    expect(transientFault(pgError('EPIPE'))).toBe('OUTCOME_UNKNOWN');
    expect(transientFault(pgError('ECONNREFUSED'))).toBe('ROLLED_BACK');
    expect(transientFault(new Error('Connection terminated unexpectedly'))).toBe('OUTCOME_UNKNOWN');
    expect(transientFault(new Error('Connection terminated'))).toBe('OUTCOME_UNKNOWN');
    const poolTimeout = Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
      name: 'KnexTimeoutError',
    });
    expect(transientFault(poolTimeout)).toBe('ROLLED_BACK');
  });

  it('R-FB-2 a wrapped fault is found through its cause', () => {
    expect(transientFault(new Error('query failed', { cause: pgError('40P01') }))).toBe('ROLLED_BACK');
    expect(transientFault(new Error('outer', { cause: new Error('inner', { cause: pgError('57P01') }) }))).toBe('OUTCOME_UNKNOWN');
  });

  it.each([
    ['23505', 'unique violation'],
    ['23503', 'foreign key violation'],
    ['22001', 'string too long'],
    ['22P02', 'invalid text representation'],
    ['42P01', 'undefined table'],
    ['42501', 'insufficient privilege'],
    ['53100', 'disk full'],
    ['XX000', 'internal error'],
  ])('R-FB-2 SQLSTATE %s (%s) is not transient: retrying unchanged would fail again', (code) => {
    expect(transientFault(pgError(code))).toBeNull();
  });

  it('R-FB-2 errors without a database cause, and non-errors, are not transient', () => {
    expect(transientFault(new Error('Cannot read properties of undefined'))).toBeNull();
    expect(transientFault(new TypeError('x is not a function'))).toBeNull();
    for (const value of [undefined, null, 'Connection terminated', 42, {}, { code: 57014 }]) expect(transientFault(value)).toBeNull();
    // A cycle of causes ends.
    const looped: Error & { cause?: unknown } = new Error('loop');
    looped.cause = looped;
    expect(transientFault(looped)).toBeNull();
  });
});

describe('missedDeadline: the database deadlines the service keeps itself (R-OP-6)', () => {
  const named = (name: string, message = 'x') => Object.assign(new Error(message), { name });

  it('R-OP-6 a statement past its read timeout (as pg, and as knex reports it): a write may have committed', () => {
    for (const error of [new Error('Query read timeout'), new Error('COMMIT; - Query read timeout')]) {
      expect(missedDeadline(error)).toBe('statement');
      expect(transientFault(error)).toBe('OUTCOME_UNKNOWN');
    }
  });

  it('R-OP-6 a connection that did not open, none free in the pool or the share, the request past its deadline: nothing was sent', () => {
    expect(missedDeadline(new Error('timeout expired'))).toBe('connect');
    expect(missedDeadline(named('KnexTimeoutError'))).toBe('pool');
    expect(missedDeadline(named('TeamConnectionShareTimeoutError'))).toBe('pool');
    expect(missedDeadline(named('RequestDatabaseTimeError'))).toBe('request');
    for (const error of [new Error('timeout expired'), named('KnexTimeoutError'), named('RequestDatabaseTimeError')]) {
      expect(transientFault(error)).toBe('ROLLED_BACK');
    }
  });

  it("R-OP-6 PostgreSQL's statement timeout (57014) is the server's deadline, found through a cause, and stays ROLLED_BACK", () => {
    expect(missedDeadline(pgError('57014'))).toBe('server');
    expect(missedDeadline(new Error('outer', { cause: pgError('57014') }))).toBe('server');
    expect(transientFault(pgError('57014'))).toBe('ROLLED_BACK');
    expect(missedDeadline({ code: 57014 })).toBeNull();
  });

  it('R-OP-6 found through a cause; other faults are no missed deadline', () => {
    expect(missedDeadline(new Error('outer', { cause: new Error('Query read timeout') }))).toBe('statement');
    for (const error of [
      pgError('55P03'),
      pgError('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout, then more'),
      new Error('the timeout expired'),
      undefined,
      'Query read timeout',
    ]) {
      expect(missedDeadline(error)).toBeNull();
    }
  });
});
