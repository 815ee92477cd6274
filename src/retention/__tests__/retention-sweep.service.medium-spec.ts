import os from 'node:os';
import { Logger } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter, Registry } from 'prom-client';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { HANDLE_COLUMNS, handleColumns, testConfig } from '../../../test/support/tool-results-service';
import { RetentionMetrics } from '../retention.metrics';
import { SWEEP_LEASE, teamLease } from '../retention.repository';
import type { RetentionReport } from '../retention-sweep.service';
import { retentionServiceFor } from '../../../test/support/retention-service';

/**
 * The sweep on a real database (R-RT-1, R-RT-2, R-RT-5): resuming after an interrupted batch,
 * the lease after a failure or a takeover, and the per-batch transaction with its own statement
 * timeout. Faults are injected with triggers on the test's own database.
 */
describe('RetentionSweepService (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  const team = crypto.randomUUID();
  const user = crypto.randomUUID();
  const space = crypto.randomUUID();
  const conversation = crypto.randomUUID();
  const message = crypto.randomUUID();
  const handle = handleColumns({
    memId: 'mem_aaaaaaaaaaaaaaaa',
    toolName: 'fetch',
    toolUseId: 'tu',
    sizeChars: 7,
    toolInput: {},
    toolOutput: { n: 1 },
  });
  let seeded = 0;

  function counters() {
    const registry = new Registry();
    const make = (name: string) => new Counter({ name, help: name, registers: [registry] });
    const c = {
      toolResults: make('tool_results_retention_deletes_total'),
      recallEvents: make('recall_events_retention_deletes_total'),
      feedbackEvents: make('feedback_events_retention_deletes_total'),
      feedbackComments: make('feedback_comments_retention_cleared_total'),
      conversations: make('conversations_retention_deletes_total'),
      messages: make('messages_retention_deletes_total'),
    };
    return {
      ...c,
      metrics: new RetentionMetrics(c.toolResults, c.recallEvents, c.feedbackEvents, c.feedbackComments, c.conversations, c.messages),
    };
  }
  const value = async (counter: Counter) => (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);

  function serviceWith(env: Record<string, string>) {
    const c = counters();
    return { ...retentionServiceFor(db.orm.em, testConfig(env), c.metrics), ...c };
  }

  const scalar = async (sql: string, params: unknown[] = []) =>
    Number(Object.values((await em.execute<Record<string, unknown>[]>(sql, params))[0])[0]);
  const snapshots = (where = 'true', params: unknown[] = []) => scalar(`select count(*) from message_tool_results where ${where}`, params);
  const leases = () => em.execute<{ name: string; holder: string }[]>(`select name, holder from retention_leases`);
  const countOf = (report: RetentionReport, table: string) => report.deleted.find((d) => d.table === table)?.count;

  /**
   * `n` snapshots `ageDays` old, one second apart (the first is the oldest), with tool names
   * from `toolName(i)`; returns their tool_use_ids, oldest first.
   */
  async function seed(n: number, ageDays: number, toolName: (i: number) => string = () => 'fetch'): Promise<string[]> {
    const prefix = `s${(seeded += 1)}_`;
    const names = Array.from({ length: n }, (_, i) => toolName(i + 1));
    await em.execute(
      `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars, ${HANDLE_COLUMNS},
                                         team_id, space_generation)
       select gen_random_uuid(), c.user_id, ?, c.id, ?::jsonb ->> (g - 1), '{}'::jsonb, '{"n":1}'::jsonb,
              now() - ? * interval '1 day' - (? - g) * interval '1 second', ? || g, 'mem_' || translate(lpad((? * 100000 + g)::text, 16, '0'), '0123456789', 'abcdefghij'), 7, ?, ?, ?, ?, ?,
              s.team_id, s.generation
         from generate_series(1, ?) g, conversations c join spaces s on s.team_id = c.team_id and s.id = c.space_id
        where c.team_id = ? and c.id = ? and c.user_id = ?`,
      [message, JSON.stringify(names), ageDays, n, prefix, seeded, ...handle, n, team, conversation, user],
    );
    return names.map((_, i) => `${prefix}${i + 1}`);
  }
  const present = async (toolUseIds: string[]) =>
    (
      await em.execute<{ tool_use_id: string }[]>(
        `select tool_use_id from message_tool_results where tool_use_id in (?) order by created_at`,
        [toolUseIds],
      )
    ).map((r) => r.tool_use_id);

  beforeAll(async () => {
    Logger.overrideLogger(false);
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    await em.execute(
      `insert into teams (id) values (?);
       insert into users (id, team_id) values (?, ?);
       insert into spaces (id, team_id, name) values (?, ?, 's');
       insert into conversations (team_id, id, user_id, space_id) values (?, ?, ?, ?);
       insert into messages (team_id, id, conversation_id, user_id) values (?, ?, ?, ?);`,
      [team, user, team, space, team, team, conversation, user, space, team, message, conversation, user],
    );
  });
  afterAll(() => db.close());
  afterEach(async () => {
    jest.restoreAllMocks();
    await em.execute(`drop trigger if exists retention_test_fault on message_tool_results; drop trigger if exists retention_test_takeover on feedback_events;
      delete from retention_leases; delete from message_tool_results; delete from feedback_events; delete from recall_events;`);
  });

  it('R-RT-1 an interrupted sweep resumes where it stopped: the failed batch rolls back, a later sweep deletes the rest, nothing twice', async () => {
    // Batches of 10, oldest first: the 15th oldest sleeps on delete, past the 200 ms batch timeout.
    const old = await seed(25, 200, (i) => (i === 15 ? 'slow' : 'fetch'));
    const fresh = await seed(3, 10);
    await em.execute(
      `create or replace function retention_test_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(3); return old; end $$;
       create trigger retention_test_fault before delete on message_tool_results for each row when (old.tool_name = 'slow') execute function retention_test_slow();`,
    );
    const { service, toolResults } = serviceWith({ RETENTION_BATCH_SIZE: '10', RETENTION_STATEMENT_TIMEOUT_MS: '200' });

    const started = Date.now();
    // query_canceled: the batch's own timeout (200 ms), not the pool's 15 s one, cut the statement.
    await expect(service.sweep()).rejects.toMatchObject({ code: '57014' });
    expect(Date.now() - started).toBeLessThan(2500);
    // The first batch (the 10 oldest) is committed; the second one rolled back as a whole.
    expect(await present(old)).toEqual(old.slice(10));
    expect(await value(toolResults)).toBe(10);
    // R-RT-2: the lease went with the failure.
    expect(await leases()).toEqual([]);

    await em.execute(`drop trigger retention_test_fault on message_tool_results`);
    const report = await service.sweep();
    expect(report.skipped).toBe(false);
    expect(countOf(report, 'message_tool_results')).toBe(15);
    expect(await present(old)).toEqual([]);
    expect(await present(fresh)).toEqual(fresh);
    // 10 + 15 = 25: every expired row counted once.
    expect(await value(toolResults)).toBe(25);
    expect(countOf(await service.sweep(), 'message_tool_results')).toBe(0);
    expect(await value(toolResults)).toBe(25);
  });

  it('R-RT-2 the lease is released when a sweep fails, so the next sweep (this replica or another) is not skipped', async () => {
    await seed(5, 200, (i) => (i === 1 ? 'boom' : 'fetch'));
    await em.execute(
      `create or replace function retention_test_boom() returns trigger language plpgsql as $$ begin raise exception 'injected fault'; end $$;
       create trigger retention_test_fault before delete on message_tool_results for each row when (old.tool_name = 'boom') execute function retention_test_boom();`,
    );
    const first = serviceWith({ RETENTION_BATCH_SIZE: '10' });
    await expect(first.service.sweep()).rejects.toMatchObject({ message: expect.stringContaining('injected fault') });
    expect(await leases()).toEqual([]);
    expect(await snapshots()).toBe(5);

    await em.execute(`drop trigger retention_test_fault on message_tool_results`);
    const other = serviceWith({ RETENTION_BATCH_SIZE: '10' });
    const report = await other.service.sweep();
    expect(report).toMatchObject({ skipped: false });
    expect(countOf(report, 'message_tool_results')).toBe(5);
    expect(await snapshots()).toBe(0);
    // And the replica that failed sweeps again too.
    expect(await first.service.sweep()).toMatchObject({ skipped: false });
  });

  it('R-RT-2 a live lease of another holder makes the sweep skip, touching nothing; an expired one is taken over', async () => {
    await seed(4, 200);
    await em.execute(`insert into retention_leases (name, holder, expires_at) values (?, 'replica-b', now() + interval '1 hour')`, [
      SWEEP_LEASE,
    ]);
    const { service, toolResults } = serviceWith({});
    statements.length = 0;
    expect(await service.sweep()).toEqual({ skipped: true, deleted: [], durationMs: expect.any(Number) });
    expect(statements.some((s) => /delete from message_tool_results|update feedback_events/.test(s))).toBe(false);
    expect(await snapshots()).toBe(4);
    expect(await leases()).toEqual([{ name: SWEEP_LEASE, holder: 'replica-b' }]);

    await em.execute(`update retention_leases set expires_at = now() - interval '1 second'`);
    const report = await service.sweep();
    expect(report.skipped).toBe(false);
    expect(countOf(report, 'message_tool_results')).toBe(4);
    expect(await value(toolResults)).toBe(4);
    expect(await leases()).toEqual([]);
  });

  it("R-RT-2 R-TN-6 a team's own sweep and the scheduler's exclude each other on the team's lease, and only there", async () => {
    await seed(3, 200);
    await em.execute(`insert into retention_leases (name, holder, expires_at) values (?, 'replica-b', now() + interval '1 hour')`, [
      teamLease(team),
    ]);
    const { service, toolResults } = serviceWith({});
    // Another sweep of the team is running: the scheduler's sweep passes the team, a team sweep skips.
    const all = await service.sweep();
    expect(all.skipped).toBe(false);
    expect(countOf(all, 'message_tool_results')).toBe(0);
    expect(await service.sweepTeam(team)).toEqual({ skipped: true, deleted: [], durationMs: expect.any(Number) });
    expect(await snapshots()).toBe(3);

    // The scheduler's lease held elsewhere does not hold up a team's own sweep.
    await em.execute(`update retention_leases set name = ?`, [SWEEP_LEASE]);
    const own = await service.sweepTeam(team);
    expect(own.skipped).toBe(false);
    expect(countOf(own, 'message_tool_results')).toBe(3);
    expect(await value(toolResults)).toBe(3);
    expect(await leases()).toEqual([{ name: SWEEP_LEASE, holder: 'replica-b' }]);
  });

  it('R-RT-2 between batches a sweep only reads its leases; it renews them (a committed write) once a quarter of the lease has passed', async () => {
    const leaseWrites = () => statements.filter((sql) => sql.includes('insert into retention_leases')).length;
    const leaseReads = () => statements.filter((sql) => sql.includes('from retention_leases where name = any(')).length;
    await seed(10, 200);
    statements.length = 0;
    const report = await serviceWith({ RETENTION_BATCH_SIZE: '2' }).service.sweep();
    expect(countOf(report, 'message_tool_results')).toBe(10);
    // The sweep's and the team's lease taken once each; after each of the five full batches of snapshots, both checked by one read.
    expect(leaseWrites()).toBe(2);
    expect(leaseReads()).toBeGreaterThanOrEqual(5);

    await seed(10, 200);
    statements.length = 0;
    // A 1 s lease and 300 ms between batches: past a quarter of the lease at every check, so each renews.
    await serviceWith({ RETENTION_BATCH_SIZE: '2', RETENTION_LEASE_MS: '1000', RETENTION_BATCH_PAUSE_MS: '300' }).service.sweep();
    expect(leaseWrites()).toBeGreaterThanOrEqual(2 + 5);
    expect(await leases()).toEqual([]);
  });

  it('R-RT-2 a sweep whose lease another replica took over between batches stops sweeping (no table is swept without the lease)', async () => {
    // Three feedback events past 365 days (batches of 2), and expired snapshots for a later step.
    await em.execute(
      `insert into recall_events (team_id, id, profile_id, space_id, space_generation, contract_version, results, source, created_at)
       select ?, 'rec_takeover_' || g, ?, ?, 1, 'v1', '[]'::jsonb, 'EXTERNAL', now() - interval '400 days' from generate_series(1, 3) g;
       insert into feedback_events (team_id, id, recall_event_id, profile_id, actor_id, space_id, space_generation, contract_version, degraded_branches,
                                    returned_refs, used, irrelevant_result_refs, hypothesis_feedback, created_at)
       select ?, 'fb_takeover_' || g, 'rec_takeover_' || g, ?, ?, ?, 1, 'v1', '[]', '[]', true, '[]', '[]', now() - interval '400 days' - g * interval '1 second'
         from generate_series(1, 3) g;`,
      [team, user, space, team, user, user, space],
    );
    const expired = await seed(6, 200);
    // The first feedback batch commits together with another replica taking the lease over.
    await em.execute(
      `create or replace function retention_test_takeover() returns trigger language plpgsql as $$
         begin update retention_leases set holder = 'replica-b', expires_at = clock_timestamp() + interval '1 hour'; return null; end $$;
       create trigger retention_test_takeover after delete on feedback_events for each statement execute function retention_test_takeover();`,
    );
    const { service, toolResults } = serviceWith({ RETENTION_BATCH_SIZE: '2' });

    await service.sweep();
    expect(await scalar(`select count(*) from feedback_events`)).toBe(1);
    // replica-b holds the leases now (the global one and the team's): this replica must not go on to the other tables.
    expect(await leases()).toEqual(
      expect.arrayContaining([
        { name: SWEEP_LEASE, holder: 'replica-b' },
        { name: teamLease(team), holder: 'replica-b' },
      ]),
    );
    expect(await leases()).toHaveLength(2);
    expect(await present(expired)).toEqual(expired);
    expect(await value(toolResults)).toBe(0);
  });

  it('R-RT-1 each batch is a transaction of its own whose statement timeout is set for that transaction only (set_config local)', async () => {
    await seed(25, 200);
    const { service } = serviceWith({ RETENTION_BATCH_SIZE: '10', RETENTION_STATEMENT_TIMEOUT_MS: '4321' });
    statements.length = 0;
    const report = await service.sweep();
    expect(countOf(report, 'message_tool_results')).toBe(25);

    const log = statements.map((s) => s.replace(/^\[query\]\s*/, ''));
    // Every statement a batch runs (delete, update, or the locking read of recall events) lies in a transaction
    // that opened with the batch's own timeout and committed.
    const transactions = log.flatMap((s, i) => (/^begin\b/.test(s) ? [i] : []));
    // feedback events, feedback comments, recall events, conversations, deleted users' tombstones: one (empty)
    // batch each; snapshots: 10 + 10 + 5.
    expect(transactions).toHaveLength(8);
    expect(log.filter((s) => /delete from message_tool_results/.test(s))).toHaveLength(3);
    for (const begin of transactions) {
      expect(log[begin + 1]).toMatch(/^select set_config\('statement_timeout', '4321', true\)/);
      const end = log.findIndex((s, i) => i > begin && /^(commit|rollback)\b/.test(s));
      expect(log[end]).toMatch(/^commit\b/);
      expect(end - begin).toBeGreaterThan(2);
    }
    const inside = new Set(
      transactions.flatMap((begin) =>
        Array.from({ length: log.findIndex((s, i) => i > begin && /^commit\b/.test(s)) - begin }, (_, k) => begin + k),
      ),
    );
    const work = log.flatMap((s, i) => (/^with done as \((delete|update) |for update$/.test(s.trim()) ? [i] : []));
    expect(work.length).toBeGreaterThanOrEqual(5);
    expect(work.filter((i) => !inside.has(i))).toEqual([]);
    // Local to the transaction: no pooled connection keeps the batch timeout afterwards.
    const shown = await Promise.all(
      Array.from({ length: 4 }, () => em.fork().execute<{ statement_timeout: string }[]>(`show statement_timeout`)),
    );
    expect(shown.map((rows) => rows[0].statement_timeout)).toEqual(['15s', '15s', '15s', '15s']);
  });

  it('R-RT-2 a replica whose host name is 63 characters long (a Kubernetes pod name at its limit) can take the lease', async () => {
    jest.spyOn(os, 'hostname').mockReturnValue(`recall-ledger-${'x'.repeat(49)}`);
    await seed(2, 200);
    const { service } = serviceWith({});
    const report = await service.sweep();
    expect(report.skipped).toBe(false);
    expect(countOf(report, 'message_tool_results')).toBe(2);
  });
});
