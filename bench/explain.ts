import type { Pool } from 'pg';
import type { DataSet } from './data-loader';

/** EXPLAIN (ANALYZE, BUFFERS) of the hot reads on conversation 0 (BENCH_EXPLAIN=1). */
export async function explainHotReads(pool: Pool, data: DataSet, log: (line: string) => void): Promise<void> {
  const conversationId = data.conversationIds[0];
  const userId = data.ownerOf(0);
  const statements: [string, string, unknown[]][] = [
    [
      'recallBlock rows (service statement)',
      `select r.id, r.tool_output, c.space_id from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
        where r.team_id = $3 and r.conversation_id = $1 and r.user_id = $2 order by r.created_at desc, r.id desc limit 5`,
      [conversationId, userId, data.teamId],
    ],
    [
      'cap trim (service statement, read part)',
      `select id from (select id, row_number() over (partition by conversation_id order by created_at desc, id desc) as position
         from message_tool_results where team_id = $3 and user_id = $1 and conversation_id in ($2)) ranked where position > 200`,
      [userId, conversationId, data.teamId],
    ],
  ];
  const client = await pool.connect();
  try {
    // Custom plans for the parameter values, as the service's unnamed statements get.
    for (const [label, sql, params] of statements) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`, params);
      log(`  EXPLAIN ${label}:`);
      for (const row of rows) log(`    ${row['QUERY PLAN']}`);
    }
  } finally {
    client.release();
  }
}
