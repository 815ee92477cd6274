import { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { ormOptions } from '../orm-options';

describe('ORM connection options (real PostgreSQL)', () => {
  let database: TestDatabase;
  let orm: MikroORM;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await MikroORM.init(ormOptions({ url: database.url, statementTimeoutMs: 300 }));
  });
  afterAll(async () => {
    await orm.close(true);
    await database.drop();
  });

  it('R-OP-6 every connection carries the configured statement timeout', async () => {
    const em = orm.em.fork();
    expect(await em.execute('show statement_timeout')).toEqual([{ statement_timeout: '300ms' }]);
    await expect(em.execute('select pg_sleep(1)')).rejects.toThrow(/statement timeout/);
  });

  it('R-OP-6 every connection also has the client-side deadlines: a read timeout past the statement timeout, a connect timeout, TCP keepalive', () => {
    const connection = (options: Parameters<typeof ormOptions>[0]) =>
      (ormOptions(options).driverOptions as { connection: object }).connection;
    expect(connection({ url: database.url })).toEqual({
      statement_timeout: 15000,
      query_timeout: 16000,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10000,
    });
    expect(connection({ url: database.url, statementTimeoutMs: 300 })).toMatchObject({ query_timeout: 1300 });
    const client = orm.em.getConnection().getKnex().client as { connectionSettings: Record<string, unknown> };
    expect(client.connectionSettings).toMatchObject({ statement_timeout: 300, query_timeout: 1300, keepAlive: true });
  });

  it('R-OP-6 with the pool exhausted a request fails within the acquire timeout instead of hanging', async () => {
    const small = await MikroORM.init(ormOptions({ url: database.url, statementTimeoutMs: 5000, acquireTimeoutMs: 300, poolMax: 1 }));
    try {
      const holder = small.em.fork();
      const held = holder.execute('select pg_sleep(1.5)');
      await new Promise((r) => setTimeout(r, 100)); // let the holder take the only connection
      const started = Date.now();
      await expect(small.em.fork().execute('select 1')).rejects.toThrow(/Timeout acquiring a connection/);
      // Failed after the 300 ms acquire timeout, not after the holder's 1.5 s.
      expect(Date.now() - started).toBeLessThan(1400);
      await held;
    } finally {
      await small.close(true);
    }
  });
});
