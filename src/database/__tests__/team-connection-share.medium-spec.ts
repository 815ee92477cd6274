import type { EntityManager } from '@mikro-orm/postgresql';
import type { KeyedSemaphore } from '../../common/concurrency/keyed-semaphore';
import { runSql } from '../run-sql';
import { type ConnectionSource, shareConnectionsByTeam, TeamConnectionShareTimeoutError } from '../team-connection-share';
import { withTenantScope } from '../tenant-scope';
import { transientFault } from '../transient-fault';
import { createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { settled } from '../../../test/support/promises';

/** A promise settled from outside, to hold a transaction open for as long as a test needs. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('the per-team share of the connection pool (R-TN-10, real PostgreSQL)', () => {
  let db: TestOrm;
  let em: EntityManager;
  let share: KeyedSemaphore;
  const teamA = crypto.randomUUID();
  const teamB = crypto.randomUUID();
  const ACQUIRE_TIMEOUT_MS = 1000;

  beforeAll(async () => {
    db = await createTestOrm({ pool: { min: 0, max: 4, acquireTimeoutMillis: ACQUIRE_TIMEOUT_MS } });
    em = db.orm.em.fork();
    share = shareConnectionsByTeam(em.getConnection().getKnex().client as ConnectionSource, {
      perTeam: 1,
      acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
    });
  });
  afterAll(() => db.close());

  const selectAs = (teamId: string) => withTenantScope({ teamId }, () => runSql<{ one: number }[]>(em, 'select 1 as one'));

  /** Team A's transaction holding its one connection until `release.open()`; resolves once it holds it. */
  async function holdConnection(teamId: string, release: { opened: Promise<void> }): Promise<{ done: Promise<unknown> }> {
    const holding = gate();
    const done = withTenantScope({ teamId }, () =>
      em.transactional(async (tx) => {
        await runSql(tx, 'select 1');
        holding.open();
        await release.opened;
      }),
    );
    await holding.opened;
    // Wrapped: an async function returning the promise itself would wait for it.
    return { done };
  }

  it('R-TN-10 a team at its share waits for one of its own connections while another team goes through', async () => {
    const release = gate();
    const { done: transaction } = await holdConnection(teamA, release);
    expect(share.heldBy(teamA)).toBe(1);

    const waiting = selectAs(teamA);
    // Team B is served at once from the same pool, which has connections to spare.
    await expect(selectAs(teamB)).resolves.toEqual([{ one: 1 }]);
    expect(await settled(waiting)).toBe(false);
    expect(share.waitingFor(teamA)).toBe(1);

    release.open();
    await transaction;
    await expect(waiting).resolves.toEqual([{ one: 1 }]);
    expect(share.heldBy(teamA)).toBe(0);
    expect(share.heldBy(teamB)).toBe(0);
  });

  it('R-TN-10 R-OP-6 a wait for the share ends at the acquire timeout as a retryable fault, holding nothing', async () => {
    const release = gate();
    const { done: transaction } = await holdConnection(teamA, release);
    const error: unknown = await selectAs(teamA).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TeamConnectionShareTimeoutError);
    expect(transientFault(error)).toBe('ROLLED_BACK');
    expect(share.waitingFor(teamA)).toBe(0);
    release.open();
    await transaction;
    expect(share.heldBy(teamA)).toBe(0);
    await expect(selectAs(teamA)).resolves.toEqual([{ one: 1 }]);
  });

  it('R-TN-10 a transaction counts once however many statements it runs; work outside a tenant scope is not counted', async () => {
    const rows = await withTenantScope({ teamId: teamA }, () =>
      em.transactional(async (tx) => {
        await runSql(tx, 'select 1');
        await runSql(tx, 'select 2');
        expect(share.heldBy(teamA)).toBe(1);
        return runSql<{ three: number }[]>(tx, 'select 3 as three');
      }),
    );
    expect(rows).toEqual([{ three: 3 }]);
    await runSql(em, 'select 1');
    expect(share.heldBy(teamA)).toBe(0);
  });
});
