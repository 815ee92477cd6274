/**
 * Retention through the API (docs/requirements.md §7): the tool-result sweep in batches beside a live writer
 * (R-RT-1, R-RT-5), runRetentionSweep (R-RT-6), and recall and feedback retention (R-RT-3).
 */
import { RECORD, toolResult } from '../../support/fixtures';
import { expectErrorCode, gql } from '../../support/graphql';
import {
  bulkSnapshots,
  countsOf,
  createRetentionApp,
  feedback,
  metric,
  newTeam,
  recallEvent,
  scalar,
  snapshotsOf,
  SWEEP,
  sweepAs,
  sweepOk,
  sweptCounts,
} from './support/retention-fixtures';
import { identity, type TestApp } from '../../support/test-app';

describe('Retention and deletion (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRetentionApp();
  });
  afterAll(() => t.close());

  describe('the tool-result sweep', () => {
    it('R-RT-1 R-RT-5 R-RT-6 deletes exactly the 12,000 snapshots past 180 days in batches of 5,000, counts them, and a concurrent writer keeps succeeding', async () => {
      // A team of its own: its admin's sweep covers exactly the rows below.
      const { admin, alice } = await newTeam(t);
      await bulkSnapshots(t, alice, 'o', 12_000, 181);
      await bulkSnapshots(t, alice, 'n', 500, 179);
      expect(await snapshotsOf(t, alice.userId)).toBe(12_502);

      // One row per delete statement on the table, with the rows it deleted (written as the owner:
      // the service's request role has no right on this test's table).
      await t.sql.query(
        `create table retention_test_deletes (seq serial primary key, rows int not null);
         create function retention_test_count_deletes() returns trigger language plpgsql security definer as $$
           begin insert into retention_test_deletes (rows) select count(*) from old_rows; return null; end $$;
         create trigger retention_test_count after delete on message_tool_results referencing old table as old_rows
           for each statement execute function retention_test_count_deletes();`,
      );
      const before = await metric(t, 'tool_results_retention_deletes_total');

      // A writer records one snapshot at a time, each in a conversation of its own, until the sweep is done.
      const writer = { calls: 0, failures: [] as unknown[], duringSweep: 0 };
      let sweeping = true;
      let firstWritten!: () => void;
      const written = new Promise<void>((resolve) => (firstWritten = resolve));
      const writing = (async () => {
        while (sweeping) {
          const res = await gql<{ recordToolResults: { createdCount: number } }>(
            t,
            RECORD,
            { input: [toolResult(alice.spaceId, crypto.randomUUID())] },
            alice.token,
          );
          writer.calls += 1;
          firstWritten();
          if (sweeping) writer.duringSweep += 1;
          if (res.errors || res.data?.recordToolResults.createdCount !== 1) writer.failures.push(res.errors ?? res.data);
        }
      })();
      // The sweep starts once the writer is under way.
      await written;
      const report = await sweepOk(t, admin).finally(() => {
        sweeping = false;
      });
      await writing;

      expect(report.skipped).toBe(false);
      expect(countsOf(report.deleted)).toEqual(sweptCounts({ message_tool_results: 12_000 }));
      // Batches: 12,000 > 5,000 went in three statements of at most 5,000 rows.
      const statements = (await t.sql.query(`select rows from retention_test_deletes where rows > 0 order by seq`)).rows.map((r) => r.rows);
      expect(statements).toEqual([5000, 5000, 2000]);
      expect(await metric(t, 'tool_results_retention_deletes_total')).toBe(before + 12_000);

      expect(writer.failures).toEqual([]);
      expect(writer.duringSweep).toBeGreaterThan(0);
      // The 500 newer (and the 2 + the writer's fresh ones) remain; none past 180 days does.
      expect(await snapshotsOf(t, alice.userId, `created_at < now() - interval '180 days'`)).toBe(0);
      expect(await snapshotsOf(t, alice.userId, `starts_with(tool_use_id, 'toolu_n_')`)).toBe(500);
      expect(await snapshotsOf(t, alice.userId)).toBe(502 + writer.calls);

      // A second sweep finds nothing; the counter stays.
      const again = await sweepOk(t, admin);
      expect(countsOf(again.deleted)).toEqual(sweptCounts({}));
      expect(await metric(t, 'tool_results_retention_deletes_total')).toBe(before + 12_000);
      await t.sql.query(
        `drop trigger retention_test_count on message_tool_results; drop function retention_test_count_deletes(); drop table retention_test_deletes;`,
      );
    });

    it('R-RT-6 runRetentionSweep needs the admin scope', async () => {
      const member = await identity(['memory:read', 'memory:write']);
      const res = await sweepAs(t, member);
      expectErrorCode(res, 'FORBIDDEN');
      expect(res.data?.runRetentionSweep ?? null).toBeNull();
      expectErrorCode(await gql(t, SWEEP, {}), 'UNAUTHENTICATED');
    });
  });

  describe('recall events and feedback', () => {
    it('R-RT-3 R-RT-5 recall events past 90 days go unless feedback references them; comments past 90 days are cleared (rows stay); feedback past 365 days goes', async () => {
      const { admin, alice } = await newTeam(t);
      const gone = await recallEvent(t, alice);
      const young = await recallEvent(t, alice);
      const kept = await recallEvent(t, alice);
      const fresh = await recallEvent(t, alice);
      const ancient = await recallEvent(t, alice);
      const fbKept = await feedback(t, alice, kept, 'The stale UI relationship misled me.', 'Contradicted by the code.');
      const fbFresh = await feedback(t, alice, fresh, 'Spot on.', 'Confirmed.');
      const fbAncient = await feedback(t, alice, ancient, 'Old news.');

      const age = (table: string, ids: string[], days: number) =>
        t.sql.query(`update ${table} set created_at = now() - $2 * interval '1 day' where id = any($1)`, [ids, days]);
      await age('recall_events', [gone, kept], 100);
      await age('recall_events', [young], 80);
      await age('recall_events', [fresh], 10);
      await age('recall_events', [ancient], 400);
      await age('feedback_events', [fbKept], 100);
      await age('feedback_events', [fbFresh], 10);
      await age('feedback_events', [fbAncient], 400);
      const metricsBefore = {
        recall: await metric(t, 'recall_events_retention_deletes_total'),
        feedback: await metric(t, 'feedback_events_retention_deletes_total'),
        comments: await metric(t, 'feedback_comments_retention_cleared_total'),
      };

      const report = await sweepOk(t, admin);
      expect(report.skipped).toBe(false);
      // The ancient event lost its only feedback first (365 days), then went itself (90 days).
      expect(countsOf(report.deleted)).toEqual(sweptCounts({ feedback_events: 1, feedback_comments: 1, recall_events: 2 }));

      const events = (await t.sql.query(`select id from recall_events where team_id = $1 order by id`, [alice.teamId])).rows.map(
        (r) => r.id,
      );
      expect(events).toEqual([young, kept, fresh].sort());
      const rows = (
        await t.sql.query(
          `select id, feedback_comment, hypothesis_feedback, comments_cleared_at, used, quality from feedback_events where team_id = $1`,
          [alice.teamId],
        )
      ).rows;
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect([...byId.keys()].sort()).toEqual([fbKept, fbFresh].sort());
      // Past 90 days: the texts are gone, the judgment stays.
      expect(byId.get(fbKept)).toMatchObject({
        feedback_comment: null,
        hypothesis_feedback: [{ hypothesisId: 'hyp_ok', used: true, quality: 'MEDIUM', contradicted: false, feedbackComment: null }],
        comments_cleared_at: expect.any(Date),
        used: true,
        quality: 'HIGH',
      });
      expect(byId.get(fbFresh)).toMatchObject({
        feedback_comment: 'Spot on.',
        hypothesis_feedback: [{ hypothesisId: 'hyp_ok', feedbackComment: 'Confirmed.' }],
        comments_cleared_at: null,
      });

      expect(await metric(t, 'recall_events_retention_deletes_total')).toBe(metricsBefore.recall + 2);
      expect(await metric(t, 'feedback_events_retention_deletes_total')).toBe(metricsBefore.feedback + 1);
      expect(await metric(t, 'feedback_comments_retention_cleared_total')).toBe(metricsBefore.comments + 1);

      // Cleared once: the next sweep neither clears nor deletes anything more.
      expect(countsOf((await sweepOk(t, admin)).deleted)).toEqual(sweptCounts({}));
      expect(await scalar(t, `select count(*) from feedback_events where team_id = $1`, [alice.teamId])).toBe(2);
    });
  });
});
