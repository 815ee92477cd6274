import type { Pool } from 'pg';

interface StatementRow {
  calls: string;
  mean_ms: number;
  plan_ms: number;
  total_ms: number;
  rows: string;
  query: string;
}

/** pg_stat_statements around each measured phase (BENCH_PG_STATS=1): where the database time went. */
export class StatementStats {
  constructor(
    private readonly pool: Pool,
    private readonly enabled: boolean,
  ) {}

  async reset(): Promise<void> {
    if (this.enabled) await this.pool.query('select pg_stat_statements_reset()');
  }

  async print(label: string, log: (line: string) => void, top = 8): Promise<void> {
    if (!this.enabled) return;
    const { rows } = await this.pool.query<StatementRow>(
      `select calls, round(mean_exec_time::numeric, 3)::float8 as mean_ms, round(total_exec_time::numeric, 1)::float8 as total_ms, rows,
              round(mean_plan_time::numeric, 3)::float8 as plan_ms,
              regexp_replace(query, '\\s+', ' ', 'g') as query
         from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'
        order by total_exec_time desc limit $1`,
      [top],
    );
    log(`  pg_stat_statements, ${label}:`);
    for (const r of rows) {
      log(
        `    ${r.calls.padStart(7)} calls ${String(r.mean_ms).padStart(8)} ms mean (+${r.plan_ms} ms planning) ${String(r.total_ms).padStart(9)} ms total  ${r.query.slice(0, 150)}`,
      );
    }
  }
}
