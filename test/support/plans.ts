import { Client } from 'pg';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, depth first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/**
 * The plan of a statement that runs inside a database function (`inner` names it): `call` is run
 * on a new connection, in a transaction rolled back, with auto_explain reporting nested statements
 * to the client. The connection is new, so a function with `plan_cache_mode` settings shows the
 * plan its first call gets (a generic one under `force_generic_plan`). `before` runs first in the
 * same transaction (e.g. to clear what an earlier run of `call` stored).
 */
export async function nestedPlanOf(
  databaseUrl: string,
  call: string,
  inner: string,
  before?: (client: Client) => Promise<unknown>,
): Promise<PlanNode[]> {
  const client = new Client({ connectionString: databaseUrl });
  const notices: string[] = [];
  client.on('notice', (notice) => notices.push(notice.message ?? ''));
  await client.connect();
  try {
    await client.query(`load 'auto_explain'`);
    await client.query(
      `set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
       set auto_explain.log_format = 'json'; set auto_explain.log_level = 'notice'`,
    );
    await client.query('begin');
    await before?.(client);
    await client.query(call);
    await client.query('rollback');
  } finally {
    await client.end();
  }
  const plans = notices.map((m) => JSON.parse(m.slice(m.indexOf('{'))) as { 'Query Text': string; Plan: PlanNode });
  return planNodes(plans.find((p) => p['Query Text'].includes(inner))!.Plan);
}
