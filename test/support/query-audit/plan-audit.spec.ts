import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { auditPlan, EXEMPT_MARKER, isExempt, type PlanNode } from './plan-audit';

/**
 * R-TN-9 (requirements §10, the Citus plan): the query audit's analyzer on the forms EXPLAIN
 * prints that the captured plans (plan-audit-captured.medium-spec.ts) do not all reach. Plans here are
 * cut down to the fields the analyzer reads.
 */

function scan(table: string, conditions: Record<string, string>, alias = table, type = 'Seq Scan'): PlanNode {
  return { 'Node Type': type, 'Relation Name': table, Alias: alias, ...conditions };
}

function audit(plan: PlanNode): string[] {
  return auditPlan({ 'Query Text': 'select …', Plan: plan }).map((v) => `${v.alias}: ${v.reason}`);
}

describe('R-TN-9 query audit: the analyzer', () => {
  it.each([
    ['(team_id = $1)'],
    ["(team_id = '4f1c0a52-96a6-4e1b-9b37-1f3e7f1f0a10'::uuid)"],
    ['($3 = team_id)'],
    ['((id = $2) AND (team_id = $1))'],
    ['(((id = $2) AND (team_id = ($1)::uuid)) AND (created_at > now()))'],
    ['("team_id" = $1)'],
    ["((kind = 'a = b'::text) AND (team_id = $1))"],
  ])('R-TN-9 an equality to a parameter or constant anchors a scan: %s', (filter) => {
    expect(audit(scan('messages', { Filter: filter }))).toEqual([]);
  });

  it.each([
    ['(team_id = (InitPlan 1).col1)', "only row-level security's"],
    ['(team_id = $0)', "only row-level security's"], // PostgreSQL < 16: an init plan's output
    ['((team_id = $1) OR (id = $2))', 'no team_id condition'],
    ['(NOT (team_id = $1))', 'no team_id condition'],
    ['(team_id <> $1)', 'no team_id condition'],
    ['(team_id >= $1)', 'no team_id condition'],
    ['(team_id = ANY ($1))', 'ANY'],
    ["(team_id = ANY ('{4f1c0a52-96a6-4e1b-9b37-1f3e7f1f0a10}'::uuid[]))", 'ANY'],
    ['((team_id)::text = $1)', 'under a cast'],
    ["(user_id = $1) AND (note = 'team_id = $1'::text)", 'no team_id condition'],
    ['(team_id = rl_team())', 'no team_id condition'],
  ])('R-TN-9 no anchor: %s', (filter, reason) => {
    const plan: PlanNode = {
      'Node Type': 'Result',
      Plans: [{ 'Node Type': 'Result', 'Subplan Name': 'InitPlan 1 (returns $0)' }, scan('messages', { Filter: filter })],
    };
    const found = audit(plan);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(reason);
  });

  it("R-TN-9 a scan with an empty = ANY ('{}') reads no row: PostgreSQL drops its other conditions as implied, the team's too", () => {
    expect(audit(scan('messages', { 'Index Cond': "(id = ANY ('{}'::uuid[]))" }))).toEqual([]);
    expect(audit(scan('messages', { 'Index Cond': "(id = ANY ('{4f1c0a52-96a6-4e1b-9b37-1f3e7f1f0a10}'::uuid[]))" }))).toEqual([
      'messages: no team_id condition',
    ]);
    expect(audit(scan('messages', { Filter: "((id = ANY ('{}'::uuid[])) OR (user_id = $1))" }))).toEqual([
      'messages: no team_id condition',
    ]);
  });

  it("R-TN-9 teams is keyed by id, and another table's id is not its team", () => {
    expect(audit(scan('teams', { 'Index Cond': '(id = $1)' }, 't'))).toEqual([]);
    expect(audit(scan('spaces', { 'Index Cond': '(id = $1)' }))).toEqual(['spaces: no team_id condition']);
  });

  it('R-TN-9 a join links relations by alias, qualified or quoted, and the anchor travels along it', () => {
    const plan: PlanNode = {
      'Node Type': 'Hash Join',
      'Hash Cond': '(("My Msgs".team_id = c.team_id) AND ("My Msgs".conversation_id = c.id))',
      Plans: [
        scan('messages', {}, 'My Msgs'),
        {
          'Node Type': 'Hash',
          Plans: [
            {
              'Node Type': 'Nested Loop',
              'Join Filter': '(u.team_id = c.team_id)',
              Plans: [scan('conversations', {}, 'c'), scan('users', { Filter: '(team_id = $1)' }, 'u')],
            },
          ],
        },
      ],
    };
    expect(audit(plan)).toEqual([]);
    const unanchored = structuredClone(plan);
    delete (unanchored.Plans![1].Plans![0].Plans![1] as Record<string, unknown>).Filter;
    expect(audit(unanchored)).toEqual([
      'My Msgs: joined on team_id only to relations that have no team_id = parameter or constant',
      'c: joined on team_id only to relations that have no team_id = parameter or constant',
      'u: joined on team_id only to relations that have no team_id = parameter or constant',
    ]);
  });

  it("R-TN-9 a join to a relation that is not a tenant table's (a CTE, VALUES, a function) does not anchor", () => {
    const plan: PlanNode = {
      'Node Type': 'Hash Join',
      'Hash Cond': '(m.team_id = x.team_id)',
      Plans: [scan('messages', {}, 'm'), { 'Node Type': 'CTE Scan', Alias: 'x', Filter: '(team_id = $1)' }],
    };
    expect(audit(plan)).toEqual(['m: no team_id condition']);
  });

  it("R-TN-9 a Bitmap Index Scan's condition is its heap scan's, except as one member of a BitmapOr", () => {
    const heap = (bitmap: PlanNode): PlanNode => ({ ...scan('messages', {}, 'm', 'Bitmap Heap Scan'), Plans: [bitmap] });
    const index = (cond: string): PlanNode => ({ 'Node Type': 'Bitmap Index Scan', 'Index Cond': cond });
    expect(audit(heap(index('(team_id = $1)')))).toEqual([]);
    expect(audit(heap({ 'Node Type': 'BitmapAnd', Plans: [index('(team_id = $1)'), index('(user_id = $2)')] }))).toEqual([]);
    expect(audit(heap({ 'Node Type': 'BitmapOr', Plans: [index('(team_id = $1)'), index('(user_id = $2)')] }))).toEqual([
      'm: no team_id condition',
    ]);
  });

  it('R-TN-9 an update or delete is judged by the scan that finds its target rows, an insert of values by nothing', () => {
    const modify = (child: PlanNode): PlanNode => ({
      'Node Type': 'ModifyTable',
      'Relation Name': 'messages',
      Alias: 'messages',
      Plans: [child],
    });
    expect(audit(modify(scan('messages', { 'Index Cond': '((team_id = $1) AND (id = $2))' }, 'messages', 'Index Scan')))).toEqual([]);
    expect(audit(modify(scan('messages', { 'TID Cond': "(ctid = '(0,1)'::tid)" }, 'messages', 'Tid Scan')))).toEqual([
      'messages: no team_id condition',
    ]);
    expect(audit(modify({ 'Node Type': 'Result' }))).toEqual([]);
  });

  it('R-TN-9 a table outside the tenant list is not audited', () => {
    expect(audit(scan('feature_flags', { Filter: '(key = $1)' }))).toEqual([]);
    expect(auditPlan({ 'Query Text': 'select …', Plan: scan('notes', {}) }, { notes: 'team_id' })).toHaveLength(1);
  });

  it("R-TN-9 exempt: the scheduler's team walk (inside tenancy_team_ids, or calling it) and statements a test marks", () => {
    expect(isExempt(' select id from teams order by id ', 'SQL function "tenancy_team_ids" statement 1')).toBe(true);
    expect(isExempt('select id from teams', 'PL/pgSQL function tenancy_team_ids() line 3 at RETURN QUERY')).toBe(true);
    expect(isExempt('select id from tenancy_team_ids() as t(id)')).toBe(true);
    expect(isExempt(`/* ${EXEMPT_MARKER}: R-TN-8 probe */ select * from spaces`)).toBe(true);
    expect(isExempt('select id from teams', 'SQL function "tenancy_team_ids_of" statement 1')).toBe(false);
    expect(isExempt('select * from spaces', 'PL/pgSQL function record_tool_results(uuid,uuid) line 12 at SQL statement')).toBe(false);
  });

  it('R-TN-9 no product SQL carries the exemption marker', () => {
    // git grep: status 1 when nothing matches.
    const grep = spawnSync('git', ['grep', '-l', '-F', EXEMPT_MARKER, '--', 'src', 'migrations'], {
      cwd: join(__dirname, '../../..'),
      encoding: 'utf8',
    });
    expect({ status: grep.status, files: grep.stdout }).toEqual({ status: 1, files: '' });
  });
});
