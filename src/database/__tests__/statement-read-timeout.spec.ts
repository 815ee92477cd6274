import { databaseTimeLeft, statementReadTimeout } from '../connection-deadlines';

/** As orm-options.ts sets them by default: the read timeout a second past PostgreSQL's. */
const POOL = { statement_timeout: 15_000, query_timeout: 16_000 };

describe('statementReadTimeout: how long runSql waits for one answer (R-OP-6)', () => {
  it("R-OP-6 outside a request, a statement under the pool's own timeout keeps the pool's read timeout", () => {
    expect(statementReadTimeout(POOL, undefined, undefined)).toBeUndefined();
  });

  it('R-OP-6 a statement under a timeout of its own waits that long plus the same margin', () => {
    // A retention transaction's 30 s statements; a lookup's 1 s one.
    expect(statementReadTimeout(POOL, 30_000, undefined)).toBe(31_000);
    expect(statementReadTimeout(POOL, 1_000, undefined)).toBe(2_000);
  });

  it("R-OP-6 in a request, the wait is cut to what is left of the request's database time, never lengthened", () => {
    expect(statementReadTimeout(POOL, undefined, 2_500)).toBe(2_500);
    expect(statementReadTimeout(POOL, undefined, 60_000)).toBe(16_000);
    expect(statementReadTimeout(POOL, 1_000, 60_000)).toBe(2_000);
    expect(statementReadTimeout(POOL, 30_000, 5_000)).toBe(5_000);
    // None left: zero or less, and the statement is not sent.
    expect(statementReadTimeout(POOL, undefined, 0)).toBe(0);
    expect(statementReadTimeout(POOL, undefined, -5)).toBe(-5);
  });
});

describe("databaseTimeLeft: a request's database time (R-OP-6)", () => {
  it('R-OP-6 the intervals already over count, and the open one up to now; time between them does not', () => {
    expect(databaseTimeLeft({ limitMs: 1000, usedMs: 300, open: 0, since: 0 }, 50_000)).toBe(700);
    expect(databaseTimeLeft({ limitMs: 1000, usedMs: 300, open: 2, since: 49_800 }, 50_000)).toBe(500);
    expect(databaseTimeLeft({ limitMs: 1000, usedMs: 900, open: 1, since: 49_800 }, 50_000)).toBe(-100);
  });
});
