import { Client } from 'pg';
import type { TenantScope } from '../../src/database/tenant-scope';
import { REQUEST_ROLE } from '../../src/database/request-role';
import type { TestDatabase } from './test-database';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Plan Rows'?: number;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, depth first. */
function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/** The tenant settings a request makes (run-sql's, transaction-local): its team, and its user or ''. */
const TENANT_SETTINGS = `select set_config('app.team_id', $1, true), set_config('app.user_id', $2, true)`;

/** The URLs a plan needs: a superuser's (to load auto_explain), and the request role's for the same database. */
type PlanDatabase = Pick<TestDatabase, 'superUrl' | 'appUrl' | 'name'>;

/*
 * Plans are taken as the request role only (R-TN-8), the role requests run as: under its
 * row-level security policies an operator that is not leakproof (`@@`, jsonb, LIKE, array
 * operators) cannot be an index condition, and the policies' clauses change the estimates. The
 * owner's policy is `using (true)`, so a plan taken as the owner can pass while requests miss the
 * index (issue 40 found the search doing just that).
 */

/**
 * The plan the request role gets for `sql` under `scope`, the tenant settings a request makes
 * before its statements (run-sql's, transaction-local): a member's request names its team and
 * user; team-wide work (the retention sweep, a user's deletion) leaves the user unset.
 */
export async function requestPlanOf(database: Pick<PlanDatabase, 'appUrl'>, scope: TenantScope, sql: string): Promise<PlanNode[]> {
  const client = new Client({ connectionString: database.appUrl });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(TENANT_SETTINGS, [scope.teamId, scope.userId ?? '']);
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) ${sql}`);
    await client.query('rollback');
    return planNodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.end();
  }
}

/** auto_explain's settings: every statement's plan, nested ones too, to the client as JSON. */
const AUTO_EXPLAIN: [string, string][] = [
  ['auto_explain.log_min_duration', '0'],
  ['auto_explain.log_nested_statements', 'on'],
  ['auto_explain.log_format', 'json'],
  ['auto_explain.log_level', 'notice'],
];

/**
 * The plan of a statement that runs inside a database function (`inner` names it): `call` is run
 * as the request role on a new connection, in a transaction rolled back, with auto_explain
 * reporting nested statements to the client. `scope` is the tenant settings the request makes
 * first (null for the functions that set the scope from their arguments, `rl_enter`, as in a
 * request). The connection is new, so a function with `plan_cache_mode` settings shows the plan
 * its first call gets (a generic one under `force_generic_plan`).
 *
 * The request role may not load auto_explain itself, nor may the owner give it (a superuser's
 * setting): for the call a superuser gives the role's sessions in this database (only) the library
 * and its settings, and takes them back after.
 */
export async function nestedPlanOf(database: PlanDatabase, scope: TenantScope | null, call: string, inner: string): Promise<PlanNode[]> {
  const notices: string[] = [];
  const settings: [string, string][] = [['session_preload_libraries', 'auto_explain'], ...AUTO_EXPLAIN];
  const alterRole = `alter role ${REQUEST_ROLE} in database "${database.name}"`;
  await withClient(database.superUrl, [], async (superuser) => {
    for (const [name, value] of settings) await superuser.query(`${alterRole} set ${name} = '${value}'`);
    try {
      await withClient(database.appUrl, notices, (client) => runRolledBack(client, scope, call));
    } finally {
      for (const [name] of settings) await superuser.query(`${alterRole} reset ${name}`);
    }
  });
  const plans = notices.map((m) => JSON.parse(m.slice(m.indexOf('{'))) as { 'Query Text': string; Plan: PlanNode });
  const plan = plans.find((p) => p['Query Text'].includes(inner));
  if (!plan) throw new Error(`no plan of a statement with "${inner}" among ${plans.length} reported`);
  return planNodes(plan.Plan);
}

async function withClient<T>(url: string, notices: string[], work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  client.on('notice', (notice) => notices.push(notice.message ?? ''));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function runRolledBack(client: Client, scope: TenantScope | null, call: string): Promise<void> {
  await client.query('begin');
  try {
    if (scope) await client.query(TENANT_SETTINGS, [scope.teamId, scope.userId ?? '']);
    await client.query(call);
  } finally {
    await client.query('rollback');
  }
}
