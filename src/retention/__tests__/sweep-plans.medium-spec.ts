import { Logger } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter, Registry } from 'prom-client';
import { requestPlanOf } from '../../../test/support/plans';
import { retentionServiceFor } from '../../../test/support/retention-service';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { testConfig } from '../../../test/support/tool-results-service';
import { RetentionMetrics } from '../retention.metrics';

/** Each statement of one team's sweep, with the index it enters its table by. */
const SWEEP_SCANS: [marker: RegExp, table: string, index: string][] = [
  [/^with done as \(delete from feedback_events/, 'feedback_events', 'feedback_events_team_recency'],
  [/^with done as \(update feedback_events/, 'feedback_events', 'feedback_events_team_comments_age'],
  [/from recall_events e\s+where e\.team_id/, 'recall_events', 'recall_events_team_age'],
  [/^with done as \(delete from message_tool_results/, 'message_tool_results', 'message_tool_results_team_created_at'],
  [/from conversations c\s+where c\.team_id = \S+ and c\.space_id = any/, 'conversations', 'conversations_space_age'],
];

/**
 * One team's sweep reads only that team's rows (issue 20): on many teams' rows, each of its scans
 * enters its table through a (team, age) index — (team, space, age) for conversations — never a Seq
 * Scan or a global age index that walks every tenant's old rows. Planned as the sweep runs them: as
 * the request role, under row-level security, with the team-wide settings of `withTenantScope({ teamId })`
 * (the team set, the user unset).
 */
describe('one team’s retention sweep plans (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let team: string;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    // 40 teams × 2 spaces × 5 users; every user: 10 conversations of one message and 5 snapshots
    // each, 500 recall events, about half of them with feedback — across two years, so some of every kind expired.
    await em.execute(
      `insert into teams (id) select gen_random_uuid() from generate_series(1, 40);
       insert into spaces (id, team_id, name) select gen_random_uuid(), t.id, 'space ' || g from teams t, generate_series(1, 2) g;
       insert into users (id, team_id) select gen_random_uuid(), t.id from teams t, generate_series(1, 5);
       insert into conversations (team_id, id, user_id, space_id, created_at)
         select u.team_id, gen_random_uuid(), u.id, s.id, now() - make_interval(days => (g * 37) % 700)
           from users u join spaces s on s.team_id = u.team_id, generate_series(1, 5) g;
       insert into messages (team_id, id, conversation_id, user_id, created_at)
         select c.team_id, gen_random_uuid(), c.id, c.user_id, c.created_at from conversations c;
       insert into message_tool_results (id, user_id, team_id, space_generation, message_id, conversation_id, tool_name, tool_input, tool_output,
                                         created_at, tool_use_id, mem_id, size_chars, summary_oneliner, stub, size_tokens)
         select gen_random_uuid(), m.user_id, m.team_id, 1, m.id, m.conversation_id, 'fetch', '{}'::jsonb, '{"n":1}'::jsonb,
                m.created_at + make_interval(days => g), 'toolu_' || md5(m.id::text || g), 'mem_' || substr(md5(m.id::text || g), 1, 16), 7,
                '1 key: n', '[stub]', 3
           from messages m, generate_series(1, 5) g;
       insert into recall_events (team_id, id, profile_id, space_id, space_generation, contract_version, results, source, created_at)
         select u.team_id, 'rec_' || upper(substr(md5(u.id::text || s.id::text || g), 1, 26)), u.id, s.id, 1, 'v1', '[]'::jsonb, 'EXTERNAL',
                now() - make_interval(days => (g * 29) % 700, mins => g)
           from users u join spaces s on s.team_id = u.team_id, generate_series(1, 250) g;
       insert into feedback_events (team_id, id, recall_event_id, profile_id, actor_id, space_id, space_generation, contract_version,
                                    degraded_branches, returned_refs, used, irrelevant_result_refs, hypothesis_feedback, feedback_comment, created_at)
         select e.team_id, 'fb_' || substr(e.id, 5), e.id, e.profile_id, e.profile_id, e.space_id, 1, 'v1', '[]', '[]', true, '[]', '[]', 'c', e.created_at
           from recall_events e where e.id < 'rec_8';
       analyze;`,
    );
    [{ id: team }] = await em.execute<{ id: string }[]>('select id from teams order by id limit 1 offset 7');
  });
  afterAll(() => db.close());

  it('R-RT-1 R-TN-6 each statement of a team sweep enters its table through the team-led age index, no Seq Scan', async () => {
    const registry = new Registry();
    const counter = (name: string) => new Counter({ name, help: name, registers: [registry] });
    const metrics = new RetentionMetrics(
      ...(['a', 'b', 'c', 'd', 'e', 'f'].map(counter) as [Counter, Counter, Counter, Counter, Counter, Counter]),
    );
    const { service } = retentionServiceFor(db.orm.em, testConfig({ RETENTION_BATCH_SIZE: '50' }), metrics);
    statements.length = 0;
    const report = await service.sweepTeam(team);
    expect(report.skipped).toBe(false);
    // Some of every table went, so every statement below did real work.
    expect(report.deleted.filter((d) => d.count === 0)).toEqual([]);

    const sql = statements.map((s) => s.replace(/^\[query\] /, '').replace(/ \[took .*$/s, ''));
    for (const [marker, table, index] of SWEEP_SCANS) {
      const statement = sql.find((s) => marker.test(s));
      expect(statement).toBeDefined();
      const plan = await requestPlanOf(db.database, { teamId: team }, statement!);
      const scans = plan.filter(
        (n) => n['Node Type'] !== 'ModifyTable' && (n['Relation Name'] === table || n['Index Name']?.startsWith(`${table.split('_')[0]}_`)),
      );
      expect({ table, seqScans: scans.filter((n) => n['Node Type'] === 'Seq Scan').length }).toEqual({ table, seqScans: 0 });
      expect({ table, indexes: scans.map((n) => n['Index Name']).filter(Boolean) }).toEqual({
        table,
        indexes: expect.arrayContaining([index]),
      });
    }
  });
});
