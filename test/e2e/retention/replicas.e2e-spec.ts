/**
 * Retention through the API (docs/requirements.md §7): one sweeper among replicas on one database (R-RT-2).
 */
import { teamLease } from '../../../src/retention/retention.repository';
import { RetentionSweepService } from '../../../src/retention/retention-sweep.service';
import {
  bulkSnapshots,
  countsOf,
  createRetentionApp,
  metric,
  newTeam,
  recallEvent,
  RETENTION_BATCH_SIZE,
  scalar,
  snapshotsOf,
  sweepOk,
  sweptCounts,
} from './support/retention-fixtures';
import { createReplica, type Replica, type TestApp } from '../../support/test-app';

describe('Retention and deletion (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRetentionApp();
  });
  afterAll(() => t.close());

  describe('one sweeper among replicas', () => {
    let replicas: Replica[] = [];
    beforeAll(async () => {
      replicas = [await createReplica(t, { RETENTION_BATCH_SIZE }), await createReplica(t, { RETENTION_BATCH_SIZE })];
    });
    afterAll(async () => {
      for (const r of replicas) await r.close();
    });

    const leases = async () => (await t.sql.query(`select name, holder from retention_leases`)).rows;

    it("R-RT-2 three instances sweeping at the same tick (the scheduler's sweep of every team): exactly one sweeps, the other two skip, and the expired rows are deleted once", async () => {
      const { alice } = await newTeam(t);
      await bulkSnapshots(t, alice, 'c', 3000, 200);
      const events = [await recallEvent(t, alice), await recallEvent(t, alice), await recallEvent(t, alice)];
      await t.sql.query(`update recall_events set created_at = now() - interval '100 days' where id = any($1)`, [events]);
      const counter = await metric(t, 'tool_results_retention_deletes_total');

      // The sweeper's snapshot batch waits on a row lock until both others have answered: the tick overlaps for sure.
      const lock = await t.sql.connect();
      try {
        await lock.query('begin');
        await lock.query(`select id from message_tool_results where tool_use_id = 'toolu_c_1' for update`);
        let answered = 0;
        const sweeps = [t, ...replicas].map((instance) =>
          instance.app
            .get(RetentionSweepService)
            .sweep()
            .finally(() => {
              answered += 1;
            }),
        );
        // A poll of the two sweeps' answers, bounded: the pause is between checks.
        for (let waited = 0; answered < 2 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(answered).toBe(2);
        await lock.query('commit');
        const reports = await Promise.all(sweeps);

        const swept = reports.filter((r) => !r.skipped);
        expect(swept).toHaveLength(1);
        expect(countsOf(swept[0].deleted)).toEqual(sweptCounts({ message_tool_results: 3000, recall_events: 3 }));
        expect(reports.filter((r) => r.skipped)).toEqual([
          { skipped: true, deleted: [], durationMs: expect.any(Number) },
          { skipped: true, deleted: [], durationMs: expect.any(Number) },
        ]);
      } finally {
        await lock.query('rollback').catch(() => undefined);
        lock.release();
      }
      expect(await snapshotsOf(t, alice.userId, `starts_with(tool_use_id, 'toolu_c_')`)).toBe(0);
      expect(await scalar(t, `select count(*) from recall_events where id = any($1)`, [events])).toBe(0);
      // All three processes share one registry here: 3,000 counted once, not per instance.
      expect(await metric(t, 'tool_results_retention_deletes_total')).toBe(counter + 3000);
      expect(await leases()).toEqual([]);
    });

    it('R-RT-2 the lease of a dead holder (expired) is taken over; a live one makes the sweep skip', async () => {
      const { admin, alice } = await newTeam(t);
      await bulkSnapshots(t, alice, 'd', 20, 200);
      const lease = teamLease(alice.teamId);

      await t.sql.query(
        `insert into retention_leases (name, holder, expires_at) values ($1, 'replica-alive', now() + interval '10 minutes')`,
        [lease],
      );
      for (const instance of [t, ...replicas])
        expect(await sweepOk(instance, admin)).toEqual({ skipped: true, deleted: [], durationMs: expect.any(Number) });
      expect(await snapshotsOf(t, alice.userId, `starts_with(tool_use_id, 'toolu_d_')`)).toBe(20);
      expect(await leases()).toEqual([{ name: lease, holder: 'replica-alive' }]);

      // The holder died: its lease ran out.
      await t.sql.query(`update retention_leases set holder = 'replica-dead', expires_at = now() - interval '1 second'`);
      const report = await sweepOk(replicas[0], admin);
      expect(report.skipped).toBe(false);
      expect(countsOf(report.deleted)).toEqual(sweptCounts({ message_tool_results: 20 }));
      expect(await snapshotsOf(t, alice.userId, `starts_with(tool_use_id, 'toolu_d_')`)).toBe(0);
      expect(await leases()).toEqual([]);
    });
  });
});
