import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { captureSql, createTestOrm, type TestOrm } from '../../../../test/support/test-orm';
import { TeamSummaryRulesRepository } from '../team-summary-rules.repository';

const rule = (label: string) => ({ version: 1, rules: [{ parts: [{ kind: 'count', path: 'rows', label }] }] });

describe('TeamSummaryRulesRepository (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let repo: TeamSummaryRulesRepository;
  const team = crypto.randomUUID();
  const otherTeam = crypto.randomUUID();

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    repo = new TeamSummaryRulesRepository(em);
    await em.execute('insert into teams (id) values (?), (?)', [team, otherTeam]);
  });
  afterAll(() => db.close());

  /** Runs the work and returns its result and the SQL statements it executed (transaction control left out). */
  async function withSql<T>(work: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    statements.length = 0;
    const result = await RequestContext.create(em, work);
    return { result, sql: statements.filter((s) => !/\b(begin|commit|rollback|savepoint)\b/i.test(s)) };
  }

  it('R-RC-3 R-TN-8 every statement names the team', async () => {
    await repo.upsert(otherTeam, 'search_orders', rule('theirs'), 100);
    const calls: [string, () => Promise<unknown>][] = [
      ['upsert', () => repo.upsert(team, 'search_orders', rule('orders'), 100)],
      ['upsert again', () => repo.upsert(team, 'search_orders', rule('orders'), 100)],
      ['listForTeam', () => repo.listForTeam(team)],
      ['findForTools', () => repo.findForTools(team, ['search_orders'])],
      ['delete', () => repo.delete(team, 'search_orders')],
    ];
    for (const [name, call] of calls) {
      const { sql } = await withSql(call);
      expect(sql.length).toBeGreaterThan(0);
      for (const statement of sql) expect({ name, statement }).toEqual({ name, statement: expect.stringContaining(`'${team}'`) });
    }
  });

  it("R-RC-3 the write path's read is one statement for the batch's tools only, and never another team's", async () => {
    await repo.upsert(team, 'search_orders', rule('orders'), 100);
    await repo.upsert(team, 'query_kpi_trend', rule('points'), 100);
    await repo.upsert(team, 'not_in_the_batch', rule('rows'), 100);
    await repo.upsert(otherTeam, 'lookup_invoices', rule('invoices'), 100);

    const { result, sql } = await withSql(() => repo.findForTools(team, ['search_orders', 'query_kpi_trend', 'lookup_invoices']));
    expect(sql).toHaveLength(1);
    expect(sql[0]).toContain(`tool_summary_rules_of('${team}'::uuid, '{"search_orders","query_kpi_trend","lookup_invoices"}'::text[])`);
    // The function reads the team it is given, under that team's setting (rl_enter sets it, or refuses another already set).
    const [fn] = await em.execute<{ body: string }[]>(`select prosrc as body from pg_proc where proname = 'tool_summary_rules_of'`);
    expect(fn.body).toMatch(/perform rl_enter\(p_team, null\);/);
    expect(fn.body).toMatch(/r\.team_id = p_team and r\.tool_name = any\(p_tools\)/);
    expect(result.sort((x, y) => x.toolName.localeCompare(y.toolName))).toEqual([
      { toolName: 'query_kpi_trend', rule: rule('points') },
      { toolName: 'search_orders', rule: rule('orders') },
    ]);
    expect(await repo.findForTools(team, [])).toEqual([]);
  });

  it("R-RC-3 version counts changes, the limit counts the team's documents only, and a delete touches the team's own", async () => {
    const limited = crypto.randomUUID();
    await em.execute('insert into teams (id) values (?)', [limited]);
    expect(await repo.upsert(limited, 'a', rule('one'), 2)).toMatchObject({ toolName: 'a', version: 1, rule: rule('one') });
    expect(await repo.upsert(limited, 'a', rule('two'), 2)).toMatchObject({ version: 2, rule: rule('two') });
    expect(await repo.upsert(limited, 'a', rule('two'), 2)).toMatchObject({ version: 2 });
    expect(await repo.upsert(limited, 'b', rule('one'), 2)).toMatchObject({ toolName: 'b', version: 1 });
    expect(await repo.upsert(limited, 'c', rule('one'), 2)).toBeNull();
    expect(await repo.upsert(limited, 'b', rule('three'), 2)).toMatchObject({ version: 2 });
    expect((await repo.listForTeam(limited)).map((r) => [r.toolName, r.version])).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
    expect((await repo.listForTeam(limited))[0].updatedAt).toBeInstanceOf(Date);

    expect(await repo.delete(otherTeam, 'a')).toBe(false);
    expect(await repo.delete(limited, 'a')).toBe(true);
    expect(await repo.delete(limited, 'a')).toBe(false);
    expect(await repo.upsert(limited, 'c', rule('one'), 2)).toMatchObject({ toolName: 'c', version: 1 });
  });
});
