import { statementReadTimeout } from '../connection-deadlines';

/** As orm-options.ts sets them by default: the read timeout a second past PostgreSQL's. */
const POOL = { statement_timeout: 15_000, query_timeout: 16_000 };

describe('statementReadTimeout: how long runSql waits for one answer (R-OP-6)', () => {
  it("R-OP-6 outside a request, a statement under the pool's own timeout keeps the pool's read timeout", () => {
    expect(statementReadTimeout(POOL, undefined, undefined, 0)).toBeUndefined();
  });

  it('R-OP-6 a statement under a timeout of its own waits that long plus the same margin', () => {
    // A retention transaction's 30 s statements; a lookup's 1 s one.
    expect(statementReadTimeout(POOL, 30_000, undefined, 0)).toBe(31_000);
    expect(statementReadTimeout(POOL, 1_000, undefined, 0)).toBe(2_000);
  });

  it("R-OP-6 in a request, the wait is cut to what is left of the request's deadline, never lengthened", () => {
    expect(statementReadTimeout(POOL, undefined, 10_000 + 2_500, 10_000)).toBe(2_500);
    expect(statementReadTimeout(POOL, undefined, 10_000 + 60_000, 10_000)).toBe(16_000);
    expect(statementReadTimeout(POOL, 1_000, 10_000 + 60_000, 10_000)).toBe(2_000);
    expect(statementReadTimeout(POOL, 30_000, 10_000 + 5_000, 10_000)).toBe(5_000);
  });

  it('R-OP-6 past the deadline it is zero or less: the statement is not sent', () => {
    expect(statementReadTimeout(POOL, undefined, 10_000, 10_000)).toBe(0);
    expect(statementReadTimeout(POOL, undefined, 9_000, 10_000)).toBeLessThanOrEqual(0);
  });
});
