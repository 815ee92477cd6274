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
      let holderDone = false;
      const held = holder.execute('select pg_sleep(1.5)').finally(() => (holderDone = true));
      // The holder has the only connection once its statement runs (read from another pool, one read after another).
      const running = `select count(*)::int as n from pg_stat_activity where state = 'active' and query = 'select pg_sleep(1.5)'`;
      while ((await orm.em.fork().execute<{ n: number }[]>(running))[0].n === 0);
      await expect(small.em.fork().execute('select 1')).rejects.toThrow(/Timeout acquiring a connection/);
      // Failed at the acquire timeout, while the holder still ran: an order, not a duration.
      expect(holderDone).toBe(false);
      await held;
    } finally {
      await small.close(true);
    }
  });
});
