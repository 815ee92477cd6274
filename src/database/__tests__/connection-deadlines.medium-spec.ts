import type { Request, Response } from 'express';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { requestIdMiddleware } from '../../observability/request-context';
import { keepConnectionDeadlines } from '../connection-deadlines';
import { ormOptions } from '../orm-options';
import { inTransactionWithTimeout, runSql } from '../run-sql';
import type { ConnectionSource } from '../team-connection-share';
import { withTenantScope } from '../tenant-scope';
import { missedDeadline } from '../transient-fault';
import { type BlackHoleProxy, startBlackHoleProxy } from '../../../test/support/black-hole-proxy';
import { closeEach } from '../../../test/support/file-resources';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * R-OP-6: the deadlines the service keeps itself, for when PostgreSQL cannot be heard at all. The
 * database sits behind a TCP proxy that a test black-holes (nothing forwarded, nothing reset or
 * closed), as a network partition does; `DB_STATEMENT_TIMEOUT_MS` cannot fire there.
 */
describe('deadlines on the connections (R-OP-6, real PostgreSQL behind a proxy that can fall silent)', () => {
  const STATEMENT_TIMEOUT_MS = 500;
  const QUERY_TIMEOUT_MS = 1000;
  const ACQUIRE_TIMEOUT_MS = 5000;
  let database: TestDatabase;
  const closing: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => closeEach(closing.splice(0).reverse()));
  afterAll(() => database.drop());

  interface Silenceable {
    proxy: BlackHoleProxy;
    orm: MikroORM;
  }

  /** MikroORM through a proxy of its own, with the deadlines the service puts on its pool. */
  async function behindProxy(options: { poolMax?: number; queryTimeoutMs?: number; timePerRequestMs?: number } = {}): Promise<Silenceable> {
    const proxy = await startBlackHoleProxy(database.url);
    closing.push(() => proxy.close());
    const queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    const orm = await MikroORM.init(
      ormOptions({
        url: proxy.url,
        statementTimeoutMs: queryTimeoutMs - (QUERY_TIMEOUT_MS - STATEMENT_TIMEOUT_MS),
        queryTimeoutMs,
        connectTimeoutMs: 1000,
        acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
        poolMax: options.poolMax ?? 2,
      }),
    );
    // Resumed before closing: a pool cannot say goodbye through a silent network.
    closing.push(
      () => orm.close(true),
      () => Promise.resolve(proxy.resume()),
    );
    keepConnectionDeadlines(orm.em.getConnection().getKnex().client as ConnectionSource, {
      acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
      timePerRequestMs: options.timePerRequestMs ?? 60_000,
    });
    return { proxy, orm };
  }

  /** `work` as an HTTP request's: with its budget, where the request's database time is kept. */
  function inRequest<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const req = { headers: {} } as Request;
      const res = { setHeader: () => undefined } as unknown as Response;
      requestIdMiddleware(req, res, () => void work().then(resolve, reject));
    });
  }

  /**
   * A statement sent into the silence on a connection of its own, which gives up after `ms`: what
   * finishes before it did not wait that long (two timers of one process, a wide margin apart).
   */
  async function outlastedAfter(silenceable: Silenceable, ms: number): Promise<{ sendIntoSilence(): Promise<string> }> {
    const reference = new Client({ connectionString: silenceable.proxy.url, query_timeout: ms });
    await reference.connect();
    closing.push(() => reference.end());
    return {
      sendIntoSilence: () =>
        reference.query('select 1').then(
          () => 'answered',
          () => 'reference gave up',
        ),
    };
  }

  const failure = (work: Promise<unknown>): Promise<unknown> =>
    work.then(
      () => 'succeeded',
      (error: unknown) => error,
    );
  const firstOf = (...settling: Promise<unknown>[]): Promise<unknown> => Promise.race(settling);

  it('R-OP-6 a statement the database never answers fails at its read timeout, and its connection is closed, never used again', async () => {
    const { proxy, orm } = await behindProxy();
    const em = orm.em.fork();
    await runSql(em, 'select 1');
    const connectionsBefore = proxy.connections.length;

    proxy.blackHole();
    const error = await failure(runSql(em, 'select 2'));
    expect(missedDeadline(error)).toBe('statement');
    const stuck = proxy.connections.filter((connection) => connection.heldFromService > 0);
    expect(stuck).toHaveLength(1);
    await proxy.closedByService(stuck[0]);
    expect(stuck[0].closedByServiceInHole).toBe(true);

    proxy.resume();
    await expect(runSql(em, 'select 3 as three')).resolves.toEqual([{ three: 3 }]);
    // On a connection opened after it: the late answer to `select 2` reached nobody.
    expect(proxy.connections.length).toBeGreaterThan(connectionsBefore);
  });

  it("R-OP-6 a tenant's lone statement that goes unanswered ends then: its transaction's rollback does not queue behind it", async () => {
    const silenceable = await behindProxy();
    const reference = await outlastedAfter(silenceable, QUERY_TIMEOUT_MS * 1.5);
    let silenced!: () => void;
    const referenceOutcome = new Promise<string>((resolve) => (silenced = () => void reference.sendIntoSilence().then(resolve)));
    // Its `begin` and settings are answered; the statement itself reaches the server, its answer does not.
    silenceable.proxy.blackHoleAfter('lone statement', silenced);
    const statement = failure(
      withTenantScope({ teamId: crypto.randomUUID() }, () => runSql(silenceable.orm.em.fork(), `select 'lone statement' as marker`)),
    );
    const first = await firstOf(statement, referenceOutcome);
    expect(missedDeadline(first)).toBe('statement');
  });

  it('R-OP-6 a transaction whose statement goes unanswered ends then: its rollback does not queue behind the lost statement', async () => {
    const silenceable = await behindProxy();
    const reference = await outlastedAfter(silenceable, QUERY_TIMEOUT_MS * 1.5);
    let silenced!: () => void;
    const referenceOutcome = new Promise<string>((resolve) => (silenced = () => void reference.sendIntoSilence().then(resolve)));
    const transaction = failure(
      silenceable.orm.em.fork().transactional(async (tx) => {
        await runSql(tx, 'select 1');
        silenceable.proxy.blackHole();
        silenced();
        await runSql(tx, 'select 2');
      }),
    );
    // Without closing the connection at once, the rollback would wait a read timeout of its own.
    const first = await firstOf(transaction, referenceOutcome);
    expect(missedDeadline(first)).toBe('statement');
  });

  it("R-OP-6 a transaction's statements under a longer timeout of its own (a retention batch's) are not cut at the pool's read timeout", async () => {
    const { orm } = await behindProxy();
    const slept = await inTransactionWithTimeout(orm.em.fork(), QUERY_TIMEOUT_MS * 3, (tx) =>
      runSql<{ slept: boolean }[]>(tx, `select pg_sleep(${(QUERY_TIMEOUT_MS * 1.5) / 1000}) is null as slept`),
    );
    expect(slept).toEqual([{ slept: false }]);
  });

  it('R-OP-6 a commit that goes unanswered fails as a missed deadline, and the pool does not hand its connection out again', async () => {
    const { proxy, orm } = await behindProxy({ poolMax: 1 });
    const em = orm.em.fork();
    const error = await failure(
      em.transactional(async (tx) => {
        await runSql(tx, 'select 1');
        proxy.blackHole();
      }),
    );
    expect(missedDeadline(error)).toBe('statement');
    const [committing] = proxy.connections.filter((connection) => connection.heldFromService > 0);
    await proxy.closedByService(committing);
    expect(committing.closedByServiceInHole).toBe(true);

    proxy.resume();
    // The only connection the pool may have is a new one.
    await expect(runSql(em, 'select 1 as one')).resolves.toEqual([{ one: 1 }]);
  });

  it('R-OP-6 a connection that does not open within the connect timeout fails the wait as a missed deadline', async () => {
    const { proxy, orm } = await behindProxy();
    // The pool's one open connection is held: the next statement needs a new one.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = orm.em.fork().transactional(async (tx) => {
      await runSql(tx, 'select 1');
      holding();
      await released;
    });
    await held;

    proxy.blackHole();
    const error = await failure(runSql(orm.em.fork(), 'select 2'));
    expect(missedDeadline(error)).toBe('connect');
    proxy.resume();
    release();
    await holder;
  });

  it("R-OP-6 in a request, a statement waits no longer than what is left of the request's database time", async () => {
    const silenceable = await behindProxy({ queryTimeoutMs: 6000, timePerRequestMs: 1000 });
    const reference = await outlastedAfter(silenceable, 3000);
    const em = silenceable.orm.em.fork();
    await runSql(em, 'select 1');

    silenceable.proxy.blackHole();
    const statement = failure(inRequest(() => runSql(em, 'select 2')));
    const first = await firstOf(statement, reference.sendIntoSilence());
    expect(missedDeadline(first)).toBe('statement');
  });

  it('R-OP-6 in a request, time spent off the database does not count against its database time', async () => {
    const { proxy, orm } = await behindProxy({ timePerRequestMs: 1000 });
    const elsewhere = new Client({ connectionString: proxy.url });
    await elsewhere.connect();
    closing.push(() => elsewhere.end());
    const em = orm.em.fork();
    const answers = await inRequest(async () => {
      const first = await runSql<{ n: number }[]>(em, 'select 1 as n');
      // Longer than the request's whole database time, spent on something else (a worker, a render).
      await elsewhere.query('select pg_sleep(1.2)');
      return [first, await runSql<{ n: number }[]>(em, 'select 2 as n')];
    });
    expect(answers).toEqual([[{ n: 1 }], [{ n: 2 }]]);
  });

  it("R-OP-6 in a request, no wait for a connection outlasts the request's database time, and once it is used up nothing more is tried", async () => {
    const { proxy, orm } = await behindProxy({ poolMax: 1, timePerRequestMs: 1000 });
    const em = orm.em.fork();
    await runSql(em, 'select 1');

    // The one connection is held elsewhere: the request waits for it, and gives up when its time is used up, not at the acquire timeout.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = orm.em.fork().transactional(async (tx) => {
      await runSql(tx, 'select 1');
      holding();
      await released;
    });
    await held;
    const [waited, next] = await inRequest(async () => [await failure(runSql(em, 'select 2')), await failure(runSql(em, 'select 3'))]);
    expect(missedDeadline(waited)).toBe('request');
    // Its time was used up: the next statement did not even wait for a connection.
    expect(missedDeadline(next)).toBe('request');
    release();
    await holder;
    // The late connection went back to the pool and serves again.
    await expect(runSql(em, 'select 4 as four')).resolves.toEqual([{ four: 4 }]);
    expect(proxy.connections).toHaveLength(1);
  });
});
