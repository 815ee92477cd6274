import { expandArrays, positional, runSql } from '../run-sql';
import { withTenantScope } from '../tenant-scope';
import { createTestOrm, type TestOrm } from '../../../test/support/test-orm';

describe('runSql bindings', () => {
  it('expands each array value into one placeholder per element, in order (R-TR-1 batch statements)', () => {
    expect(expandArrays('select 1 where a = ? and b in (?) and c = any(array[?]) and d = ?', ['x', ['p', 'q'], [1, 2, 3], null])).toEqual({
      sql: 'select 1 where a = ? and b in (?, ?) and c = any(array[?, ?, ?]) and d = ?',
      params: ['x', 'p', 'q', 1, 2, 3, null],
    });
  });

  it('leaves an escaped \\? alone and passes scalar values as they are', () => {
    expect(expandArrays("select '{}'::jsonb \\? 'k', ?", [['a']])).toEqual({ sql: "select '{}'::jsonb \\? 'k', ?", params: ['a'] });
    expect(expandArrays('select ?', [true])).toEqual({ sql: 'select ?', params: [true] });
  });

  it('numbers the placeholders as pg wants them; an escaped \\? stays a question mark', () => {
    expect(positional("select ?, ?::int, '{}'::jsonb \\? 'k', ?")).toBe("select $1, $2::int, '{}'::jsonb ? 'k', $3");
  });
});

describe('runSql tenant settings (real PostgreSQL)', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm();
  });
  afterAll(() => db.close());

  const team = crypto.randomUUID();
  const settingOf = (options = {}) =>
    withTenantScope({ teamId: team }, () =>
      runSql<{ team: string | null }[]>(db.orm.em, `select nullif(current_setting('app.team_id', true), '') as team`, [], options),
    );

  it('R-TN-8 a lone statement under a tenant scope runs with its settings; one that touches no tenant table runs as it is', async () => {
    expect(await settingOf()).toEqual([{ team }]);
    // retention_leases' statements: no settings and no transaction of their own, one round trip inside a team's sweep.
    expect(await settingOf({ noTenantRows: true })).toEqual([{ team: null }]);
  });

  it('R-LG-2 R-TN-8 a lone statement with a timeout is canceled after it, with its settings; the timeout ends with it; inside a transaction it is refused', async () => {
    const em = db.orm.em.fork();
    const started = Date.now();
    await expect(withTenantScope({ teamId: team }, () => runSql(em, 'select pg_sleep(5)', [], { timeoutMs: 100 }))).rejects.toMatchObject({
      code: '57014',
    });
    expect(Date.now() - started).toBeLessThan(4000);
    const within = await withTenantScope({ teamId: team }, () =>
      runSql<{ team: string; timeout: string }[]>(
        em,
        `select current_setting('app.team_id') as team, current_setting('statement_timeout') as timeout`,
        [],
        { timeoutMs: 1234 },
      ),
    );
    expect(within).toEqual([{ team, timeout: '1234ms' }]);
    // Every pooled connection is back at the configured timeout.
    const after = await Promise.all(
      Array.from({ length: 4 }, () =>
        runSql<{ timeout: string }[]>(em, `select current_setting('statement_timeout') as timeout`, [], { noTenantRows: true }),
      ),
    );
    for (const row of after) expect(row).toEqual([{ timeout: '15s' }]);
    await expect(em.transactional((tx) => runSql(tx, 'select 1', [], { timeoutMs: 100 }))).rejects.toThrow(/lone statement/);
    await expect(runSql(em, 'select 1', [], { timeoutMs: 0.5 })).rejects.toThrow(/positive integer/);
  });
});
