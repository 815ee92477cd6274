import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { captureSql, createTestOrm, type TestOrm } from '../../../../test/support/test-orm';
import { CompactionPoliciesRepository } from '../compaction-policies.repository';
import type { ToolCompactionPolicy } from '..';

const policy = (toolName: string, settings: Partial<ToolCompactionPolicy> = {}): ToolCompactionPolicy => ({
  toolName,
  neverCompact: false,
  keepLastN: null,
  sizeThreshold: null,
  clearInputs: false,
  ...settings,
});

describe('CompactionPoliciesRepository (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let repo: CompactionPoliciesRepository;
  const team = crypto.randomUUID();
  const otherTeam = crypto.randomUUID();

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    repo = new CompactionPoliciesRepository(em);
    await em.execute('insert into teams (id) values (?), (?)', [team, otherTeam]);
  });
  afterAll(() => db.close());

  /** Runs the work and returns its result and the SQL statements it executed (transaction control left out). */
  async function withSql<T>(work: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    statements.length = 0;
    const result = await RequestContext.create(em, work);
    return { result, sql: statements.filter((s) => !/\b(begin|commit|rollback|savepoint)\b/i.test(s)) };
  }

  it('R-LG-4 R-TN-8 every statement names the team', async () => {
    await repo.upsert(otherTeam, policy('search_orders', { keepLastN: 9 }), 100);
    const calls: [string, () => Promise<unknown>][] = [
      ['upsert', () => repo.upsert(team, policy('search_orders', { keepLastN: 1 }), 100)],
      ['upsert again', () => repo.upsert(team, policy('search_orders', { keepLastN: 1 }), 100)],
      ['listForTeam', () => repo.listForTeam(team)],
      ['settingsForTeam', () => repo.settingsForTeam(team)],
      ['delete', () => repo.delete(team, 'search_orders')],
    ];
    for (const [name, call] of calls) {
      const { sql } = await withSql(call);
      expect(sql.length).toBeGreaterThan(0);
      for (const statement of sql) expect({ name, statement }).toEqual({ name, statement: expect.stringContaining(`'${team}'`) });
    }
  });

  it("R-LG-4 compaction's read is one statement for the team's policies, never another team's", async () => {
    const own = crypto.randomUUID();
    await em.execute('insert into teams (id) values (?)', [own]);
    await repo.upsert(own, policy('search_orders', { keepLastN: 0, sizeThreshold: 500 }), 100);
    await repo.upsert(own, policy('fetch_page', { neverCompact: true }), 100);
    await repo.upsert(own, policy('run_query', { clearInputs: true }), 100);
    await repo.upsert(otherTeam, policy('lookup_invoices', { keepLastN: 4 }), 100);

    const { result, sql } = await withSql(() => repo.settingsForTeam(own));
    expect(sql).toHaveLength(1);
    expect(sql[0]).toContain(`tool_compaction_policies_of('${own}'::uuid)`);
    // The function reads the team it is given, under that team's setting (rl_enter sets it, or refuses another already set).
    const [fn] = await em.execute<{ body: string }[]>(`select prosrc as body from pg_proc where proname = 'tool_compaction_policies_of'`);
    expect(fn.body).toMatch(/perform rl_enter\(p_team, null\);/);
    expect(fn.body).toMatch(/where p\.team_id = p_team;/);
    expect(result.sort((x, y) => x.toolName.localeCompare(y.toolName))).toEqual([
      policy('fetch_page', { neverCompact: true }),
      policy('run_query', { clearInputs: true }),
      policy('search_orders', { keepLastN: 0, sizeThreshold: 500 }),
    ]);
    expect(await repo.settingsForTeam(crypto.randomUUID())).toEqual([]);
  });

  it("R-LG-4 version counts changes, the limit counts the team's policies only, and a delete touches the team's own", async () => {
    const limited = crypto.randomUUID();
    await em.execute('insert into teams (id) values (?)', [limited]);
    expect(await repo.upsert(limited, policy('a', { keepLastN: 1 }), 2)).toMatchObject({ toolName: 'a', version: 1, keepLastN: 1 });
    expect(await repo.upsert(limited, policy('a', { keepLastN: 2 }), 2)).toMatchObject({ version: 2, keepLastN: 2 });
    expect(await repo.upsert(limited, policy('a', { keepLastN: 2 }), 2)).toMatchObject({ version: 2 });
    // A change of any one setting counts, null to a value and back included.
    expect(await repo.upsert(limited, policy('a', { keepLastN: 2, sizeThreshold: 10 }), 2)).toMatchObject({ version: 3 });
    expect(await repo.upsert(limited, policy('a', { keepLastN: 2, sizeThreshold: 10, clearInputs: true }), 2)).toMatchObject({
      version: 4,
    });
    expect(await repo.upsert(limited, policy('a', { neverCompact: true }), 2)).toMatchObject({ version: 5, keepLastN: null });
    expect(await repo.upsert(limited, policy('b', { keepLastN: 1 }), 2)).toMatchObject({ toolName: 'b', version: 1 });
    expect(await repo.upsert(limited, policy('c', { keepLastN: 1 }), 2)).toBeNull();
    expect(await repo.upsert(limited, policy('b', { keepLastN: 3 }), 2)).toMatchObject({ version: 2 });
    expect((await repo.listForTeam(limited)).map((r) => [r.toolName, r.version])).toEqual([
      ['a', 5],
      ['b', 2],
    ]);
    expect((await repo.listForTeam(limited))[0].updatedAt).toBeInstanceOf(Date);

    expect(await repo.delete(otherTeam, 'a')).toBe(false);
    expect(await repo.delete(limited, 'a')).toBe(true);
    expect(await repo.delete(limited, 'a')).toBe(false);
    expect(await repo.upsert(limited, policy('c', { keepLastN: 1 }), 2)).toMatchObject({ toolName: 'c', version: 1 });
  });
});
