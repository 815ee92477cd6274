import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../test-database';
import { auditPlan, type PlanNode, type ScanViolation } from './plan-audit';
import { createScratchSchema, type ExplainOptions, explainInScratch, SCRATCH_TENANT_TABLES, scratchTeam } from './scratch-schema';

/**
 * R-TN-9 (requirements §10, the Citus plan): the query audit's analyzer on plans PostgreSQL
 * makes for the request role on a small team-keyed schema, row-level security on, as the audit
 * meets them in auto_explain's log.
 */

interface Case extends ExplainOptions {
  sql: string;
  /** What the case is about, checked to be in the plan (so a planner change cannot make it vacuous): a node type or a condition's text. */
  shape?: string;
}

/** Statements that keep every tenant scan on one team. */
const GOOD: Record<string, Case> = {
  'a key read': { sql: 'select * from spaces where team_id = $1 and id = $2' },
  'a constant team': { sql: `select * from messages where team_id = '00000000-0000-0000-0000-000000000001'` },
  'a cast parameter and id = ANY': { sql: 'select * from messages where team_id = $1::uuid and id = any($2::uuid[])' },
  'the parameter on the left': { sql: 'select * from spaces where $1 = team_id' },
  'teams by id': { sql: 'select * from teams where id = $1' },
  'a join on team_id, hash': {
    sql: `select * from messages m join conversations c on c.team_id = m.team_id and c.id = m.conversation_id
          where c.team_id = $1 and c.user_id = $2`,
    shape: 'Hash Join',
  },
  'a join on team_id, nested loop': {
    sql: `select * from messages m join conversations c on c.team_id = m.team_id and c.id = m.conversation_id
          where c.team_id = $1 and c.user_id = $2`,
    settings: ['enable_hashjoin = off', 'enable_mergejoin = off'],
    shape: 'Nested Loop',
  },
  'a join on team_id, merge': {
    sql: `select * from messages m join conversations c on c.team_id = m.team_id and c.id = m.conversation_id
          where c.team_id = $1 and c.user_id = $2`,
    settings: ['enable_hashjoin = off', 'enable_nestloop = off'],
    shape: 'Merge Join',
  },
  'a join with the team on both sides': {
    sql: 'select * from messages m join conversations c on c.id = m.conversation_id where m.team_id = $1 and c.team_id = $1',
  },
  'a correlated sub-select joined on team_id': {
    sql: `select *, (select count(*) from messages m where m.team_id = c.team_id and m.conversation_id = c.id)
          from conversations c where c.team_id = $1`,
    shape: '(team_id = c.team_id)',
  },
  'a parameterised inner index scan': {
    sql: `select * from conversations c join lateral (select * from messages m where m.team_id = c.team_id
            and m.conversation_id = c.id order by m.created_at desc limit 1) last on true where c.team_id = $1`,
    shape: 'team_id = c.team_id',
  },
  'a nested-loop join on team_id only, its outer side anchored (no row-level security)': {
    sql: `select * from conversations c join messages m on m.team_id = c.team_id and m.conversation_id = c.id
          where c.team_id = $1 and c.user_id = $2`,
    asOwner: true,
    settings: ['enable_hashjoin = off', 'enable_mergejoin = off'],
    shape: 'Nested Loop',
  },
  'an update by key': { sql: 'update messages set created_at = now() where team_id = $1 and id = $2', shape: 'ModifyTable' },
  'a delete joined on team_id': {
    sql: `delete from messages m using conversations c where c.team_id = m.team_id and c.id = m.conversation_id
          and c.team_id = $1 and c.user_id = $2`,
    shape: 'ModifyTable',
  },
  'an insert from a team select': {
    sql: 'insert into messages (team_id, id, conversation_id) select team_id, gen_random_uuid(), id from conversations where team_id = $1',
  },
  'a semi-join on team_id': {
    sql: 'select * from spaces s where s.team_id = $1 and exists (select 1 from conversations c where c.team_id = s.team_id and c.space_id = s.id)',
  },
  'a tid scan with its team': { sql: `select * from messages where ctid = '(0,1)' and team_id = $1`, shape: 'Tid Scan' },
  'a bitmap heap scan': {
    sql: 'select count(*) from messages where team_id = $1',
    settings: ['enable_indexscan = off', 'enable_seqscan = off'],
    shape: 'Bitmap Heap Scan',
  },
  'a global table beside a tenant one': {
    sql: 'select * from feature_flags f join spaces s on s.name = f.key where s.team_id = $1',
  },
  'an insert of values (no scan)': { sql: `insert into spaces values ($1, $2, 'x', 1)` },
  'an empty id list (PostgreSQL drops the team condition as implied: the scan reads nothing)': {
    sql: `select * from notes where team_id = '00000000-0000-0000-0000-000000000001' and id = any('{}'::uuid[])`,
    shape: `"Index Cond":"(id = ANY ('{}'::uuid[]))"}`,
  },
};

/** Statements with a tenant scan off its team, and what the audit must say. */
const BAD: Record<string, Case & { violations: Partial<ScanViolation>[] }> = {
  'a planted statement without a team_id condition': {
    sql: 'select * from spaces where name = $1',
    violations: [
      {
        table: 'spaces',
        alias: 'spaces',
        reason: "only row-level security's team_id = (InitPlan …) (or another sub-select): no team_id = parameter or constant",
      },
    ],
  },
  'only row-level security, the whole table': {
    sql: 'select * from spaces',
    violations: [{ table: 'spaces', reason: expect.stringContaining("only row-level security's team_id") as string }],
  },
  'a join whose other side has the team only by row-level security': {
    sql: 'select * from messages m join conversations c on c.id = m.conversation_id where c.team_id = $1 and c.user_id = $2',
    violations: [{ table: 'messages', alias: 'm', reason: expect.stringContaining("only row-level security's team_id") as string }],
  },
  'a join on team_id without any parameter': {
    sql: 'select * from spaces a join spaces b on a.team_id = b.team_id and a.id <> b.id where a.name = $1',
    violations: [
      { table: 'spaces', alias: 'a', reason: expect.stringContaining("only row-level security's") as string },
      { table: 'spaces', alias: 'b', reason: expect.stringContaining("only row-level security's") as string },
    ],
  },
  'a join on team_id without any parameter (no row-level security)': {
    sql: 'select * from spaces a join spaces b on a.team_id = b.team_id and a.id <> b.id where a.name = $1',
    asOwner: true,
    shape: 'Hash Cond',
    violations: [
      { table: 'spaces', alias: 'a', reason: 'joined on team_id only to relations that have no team_id = parameter or constant' },
      { table: 'spaces', alias: 'b', reason: 'joined on team_id only to relations that have no team_id = parameter or constant' },
    ],
  },
  'a correlated sub-select on team_id under an unanchored outer query (no row-level security)': {
    sql: `select *, (select count(*) from messages m where m.team_id = c.team_id and m.conversation_id = c.id)
          from conversations c where c.user_id = $1`,
    asOwner: true,
    shape: '(team_id = c.team_id)',
    violations: [
      { table: 'conversations', alias: 'c', reason: expect.stringContaining('joined on team_id only') as string },
      { table: 'messages', alias: 'm', reason: expect.stringContaining('joined on team_id only') as string },
    ],
  },
  'team_id = ANY (no row-level security)': {
    sql: 'select * from messages where team_id = any($1) and id = $2',
    asOwner: true,
    violations: [{ table: 'messages', reason: 'team_id = ANY (…) matches several teams: no team_id = parameter or constant' }],
  },
  'the team under a cast (no row-level security)': {
    sql: 'select * from messages where team_id::text = $1',
    asOwner: true,
    violations: [{ table: 'messages', reason: 'team_id is compared under a cast: no plain team_id = parameter or constant' }],
  },
  'teams without its id (no row-level security)': {
    sql: 'select * from teams where name = $1',
    asOwner: true,
    violations: [{ table: 'teams', alias: 'teams', reason: 'no id condition' }],
  },
  'team_id = ANY (several teams)': {
    sql: 'select * from messages where team_id = any($1) and id = $2',
    violations: [{ table: 'messages', reason: expect.stringContaining("only row-level security's") as string }],
  },
  'the team under a cast': {
    sql: 'select * from messages where team_id::text = $1',
    violations: [{ table: 'messages', reason: expect.stringContaining("only row-level security's") as string }],
  },
  'the team in an OR': {
    sql: `select * from messages where team_id = '00000000-0000-0000-0000-000000000001' or id = $1`,
    violations: [{ table: 'messages' }],
  },
  'the team from a sub-select': {
    sql: 'select * from spaces where team_id = (select $1::uuid)',
    violations: [{ table: 'spaces' }],
  },
  'a delete without its team': {
    sql: 'delete from messages where conversation_id = $1',
    violations: [{ table: 'messages', nodeType: 'Bitmap Heap Scan' }],
  },
  'a sub-select without its team': {
    sql: 'select * from users u where u.team_id = $1 and u.id in (select user_id from conversations)',
    violations: [{ table: 'conversations', alias: 'conversations' }],
  },
  'a table keyed by id alone, read by id': {
    sql: 'select * from notes where id = $1',
    violations: [{ table: 'notes', reason: expect.stringContaining("only row-level security's team_id") as string }],
  },
  'a materialized CTE joined on team_id': {
    sql: `with x as materialized (select * from spaces where team_id = $1)
          select * from x join conversations c on c.team_id = x.team_id and c.space_id = x.id`,
    violations: [{ table: 'conversations', alias: 'c' }],
  },
};

describe('R-TN-9 query audit: the analyzer on captured plans', () => {
  let db: TestDatabase;
  let owner: Client;
  let request: Client;
  let team: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    owner = new Client({ connectionString: db.url });
    await owner.connect();
    await createScratchSchema(owner);
    team = await scratchTeam(owner);
    request = new Client({ connectionString: db.appUrl });
    await request.connect();
  });

  afterAll(async () => {
    await owner?.end();
    await request?.end();
    await db?.drop();
  });

  function nodeTypes(node: PlanNode): string[] {
    return [node['Node Type'], ...Object.keys(node), ...(node.Plans ?? []).flatMap(nodeTypes)];
  }

  function expectShape(plan: PlanNode, shape: string | undefined): void {
    if (shape === undefined) return;
    if (/^[A-Z][A-Za-z -]+$/.test(shape)) expect(nodeTypes(plan)).toContain(shape);
    else expect(JSON.stringify(plan)).toContain(shape);
  }

  it.each(Object.entries(GOOD))('R-TN-9 passes: %s', async (_name, { sql, shape, ...options }) => {
    const statement = await explainInScratch({ owner, request }, team, sql, options);
    expectShape(statement.Plan, shape);
    expect(auditPlan(statement, SCRATCH_TENANT_TABLES)).toEqual([]);
  });

  it.each(Object.entries(BAD))('R-TN-9 fails: %s', async (_name, { sql, shape, violations, ...options }) => {
    const statement = await explainInScratch({ owner, request }, team, sql, options);
    expectShape(statement.Plan, shape);
    expect(auditPlan(statement, SCRATCH_TENANT_TABLES)).toEqual(violations.map((v) => expect.objectContaining(v) as unknown));
  });

  it('R-TN-9 without row-level security (as the owner), a planted statement fails with no team_id condition at all', async () => {
    const statement = await explainInScratch({ owner, request }, team, 'select * from spaces where name = $1', { asOwner: true });
    expect(auditPlan(statement, SCRATCH_TENANT_TABLES)).toEqual([
      { table: 'spaces', alias: 'spaces', nodeType: 'Seq Scan', reason: 'no team_id condition' },
    ]);
  });
});
