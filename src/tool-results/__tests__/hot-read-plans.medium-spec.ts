import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolResultJsonPathRepository } from '../tool-result-json-path.repository';
import { ToolResultRepository } from '../tool-result.repository';
import { nestedPlanOf, type PlanNode, requestPlanOf } from '../../../test/support/plans';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';

/**
 * Pins the plans of the hot reads (docs/requirements.md §9) on a realistic spread of rows, as the
 * request role with the settings a member's request makes (its team and user): the plans that
 * matter, under row-level security (R-TN-8). The top-K read of a conversation walks the (team_id,
 * conversation_id, user_id, space_generation, created_at desc, id desc) index at the current
 * generation instead of AND-ing two bitmaps over the whole conversation and sorting it: the
 * user-deep policies are CASEs, which the planner does not take for a second user filter (an OR it
 * did, and sorted whole conversations).
 */
describe('hot read plans (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  const team = crypto.randomUUID();
  const space = crypto.randomUUID();
  let userId: string;
  let conversationId: string;

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    // 40 users × 10 conversations × 100 snapshots = 40,000 rows; the space is at generation 2 and
    // every third snapshot is of generation 1 (hidden), interleaved in time with the current ones.
    await em.execute(
      `insert into teams (id) values (?);
       insert into spaces (id, team_id, name, generation) values (?, ?, 's', 2);
       insert into users (id, team_id) select gen_random_uuid(), ? from generate_series(1, 40);
       insert into conversations (team_id, id, user_id, space_id) select u.team_id, gen_random_uuid(), u.id, ? from users u, generate_series(1, 10);
       insert into messages (team_id, id, conversation_id, user_id) select c.team_id, gen_random_uuid(), c.id, c.user_id from conversations c;
       insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                         summary_oneliner, stub, size_tokens, team_id, space_generation)
         select gen_random_uuid(), m.user_id, m.id, m.conversation_id, 'query_site_data', '{"target":"x"}', '{"rows":[1,2,3]}',
                now() - make_interval(mins => g), 'toolu_' || md5(m.id::text || g), 'mem_' || substr(md5(m.id::text || g), 1, 16), 16,
                '1 key: rows[3]', '[recall-ledger tool_memory v2]', 7, ?, case when g % 3 = 0 then 1 else 2 end
           from messages m, generate_series(1, 100) g;`,
      [team, space, team, team, space, team],
    );
    // Three more teams of the same shape (space at generation 1): the policies' team clause then
    // filters something, as it does in production.
    await em.execute(
      `insert into teams (id) select gen_random_uuid() from generate_series(1, 3);
       insert into spaces (id, team_id, name) select gen_random_uuid(), t.id, 'other' from teams t where t.id <> ?;
       insert into users (id, team_id) select gen_random_uuid(), s.team_id from spaces s, generate_series(1, 10) where s.team_id <> ?;
       insert into conversations (team_id, id, user_id, space_id)
         select u.team_id, gen_random_uuid(), u.id, s.id from users u join spaces s on s.team_id = u.team_id, generate_series(1, 10) where u.team_id <> ?;
       insert into messages (team_id, id, conversation_id, user_id)
         select c.team_id, gen_random_uuid(), c.id, c.user_id from conversations c where c.team_id <> ?;
       insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                         summary_oneliner, stub, size_tokens, team_id, space_generation)
         select gen_random_uuid(), m.user_id, m.id, m.conversation_id, 'query_site_data', '{"target":"x"}', '{"rows":[1,2,3]}',
                now() - make_interval(mins => g), 'toolu_' || md5(m.id::text || g), 'mem_' || substr(md5(m.id::text || g), 1, 16), 16,
                '1 key: rows[3]', '[recall-ledger tool_memory v2]', 7, m.team_id, 1
           from messages m, generate_series(1, 100) g where m.team_id <> ?;
       analyze;`,
      [team, team, team, team, team],
    );
    const [row] = await em.execute<{ user_id: string; id: string }[]>('select user_id, id from conversations where team_id = ? limit 1', [
      team,
    ]);
    userId = row.user_id;
    conversationId = row.id;
  });
  afterAll(() => db.close());

  /**
   * The plan of the first statement `work` ran that reads snapshots, in SQL or through a read
   * function, as the request role with a member's settings (the team and the user).
   */
  async function planOf(work: () => Promise<unknown>): Promise<PlanNode[]> {
    statements.length = 0;
    await RequestContext.create(em, work);
    const sql = statements
      .filter((s) => /from (message_tool_results|tool_results_)/.test(s))[0]
      .replace(/^\[query\] /, '')
      .replace(/ \[took .*$/s, '');
    return requestPlanOf(db.database, { teamId: team, userId }, sql);
  }

  const recent = () =>
    new ToolResultRepository(em).recentInConversation({ teamId: team, userId, spaceIds: [space] }, conversationId, 5, { input: true });
  const history = () => new ToolResultRepository(em).history({ teamId: team, userId, spaceIds: [space] }, {}, null, 21);

  it('R-RC-1 R-RC-6 the top-K read of a conversation is a limited scan of the scoped recency index', async () => {
    const plan = await planOf(recent);
    // Inlined from tool_results_recent: K rows off the index; above the Limit at most a sort of those K by rank.
    const limit = plan.findIndex((n) => n['Node Type'] === 'Limit');
    expect(plan.slice(0, limit).map((n) => n['Node Type'])).toEqual(limit === 0 ? [] : ['Sort', 'Subquery Scan']);
    expect(plan.some((n) => n['Node Type'] === 'Function Scan')).toBe(false);
    const scans = plan.filter((n) => n['Relation Name'] === 'message_tool_results');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
      ['Index Scan', 'message_tool_results_conversation_user_generation_recency'],
    ]);
  });

  it('R-LG-2 §9 a json_path value is one call of tool_results_path_value, whose kept generic plan finds the row by its mem id', async () => {
    const [snapshot] = await em.execute<{ mem_id: string; team_id: string }[]>(
      'select mem_id, team_id from message_tool_results where user_id = ? limit 1',
      [userId],
    );
    statements.length = 0;
    const found = await RequestContext.create(em, () =>
      new ToolResultJsonPathRepository(em).findJsonPathValue(
        { userId, teamId: snapshot.team_id, spaceIds: [space] },
        snapshot.mem_id,
        { kind: 'keys', keys: ['rows', '1'] },
        100,
      ),
    );
    expect(found).toEqual({ value: { kind: 'number', body: '2', bodyLength: 1, complete: true } });
    const calls = statements.filter((s) => /\b(select|insert|update|delete)\b/i.test(s));
    expect(calls).toHaveLength(1);
    const [{ config }] = await em.execute<{ config: string[] }[]>(
      `select proconfig as config from pg_proc where proname = 'tool_results_path_value'`,
    );
    expect(config).toEqual(['plan_cache_mode=force_generic_plan']);
    const call = calls[0].replace(/^\[query\] /, '').replace(/ \[took .*$/s, '');
    // The function sets the scope itself (rl_enter): no settings are made before the call.
    const plan = await nestedPlanOf(db.database, null, call, 'cross join lateral');
    const scans = plan.filter((n) => n['Relation Name'] === 'message_tool_results');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'message_tool_results_mem_id_unique']]);
  });

  it("R-TR-3 §9 the cap's trim in record_tool_results reads only the conversation's rows, by its recency index, with the function's kept plan", async () => {
    const [{ config }] = await em.execute<{ config: string[] }[]>(
      `select proconfig as config from pg_proc where proname = 'record_tool_results'`,
    );
    expect(config).toEqual(['plan_cache_mode=force_generic_plan']);
    // An empty batch for the conversation at a cap of 50 (rolled back): only the trim has work to do.
    const call = `select * from record_tool_results('${team}', '${userId}', array['${conversationId}']::uuid[], array['${space}']::uuid[],
                    array[]::uuid[], array[]::uuid[], '[]'::jsonb, array[]::text[], array['${space}']::uuid[], 50, false)`;
    const plan = await nestedPlanOf(db.database, null, call, 'delete from message_tool_results');
    expect(plan[0]['Node Type']).toBe('ModifyTable');
    // The rows past the cap come off the conversation's recency index — walked in order, or as a
    // bitmap of the conversation's rows and a sort of those (the kept plan takes either, by the
    // statistics) — and each is deleted by its key: nothing else of the table is read.
    const indexes = plan.map((n) => n['Index Name']).filter((name) => name?.startsWith('message_tool_results_'));
    expect(new Set(indexes)).toEqual(new Set(['message_tool_results_conversation_user_generation_recency', 'message_tool_results_pkey']));
    expect(plan.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'message_tool_results')).toEqual([]);
  });

  it('R-TR-7 history of a user walks the user recency index', async () => {
    const plan = await planOf(history);
    const scans = plan.filter((n) => n['Relation Name'] === 'message_tool_results');
    expect(scans.map((n) => n['Index Name'])).toEqual(['message_tool_results_user_recency']);
    expect(plan.some((n) => n['Node Type'] === 'Sort')).toBe(false);
  });
});
