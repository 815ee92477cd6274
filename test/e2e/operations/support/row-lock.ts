/*
 * Blocking a conversation row, and finding the service's backend that waits for it. A request is
 * made slow for real: a separate connection holds `select … for update` on a conversation in an
 * open transaction, and recordToolResults into that conversation waits for the lock (its write
 * path locks the conversation FOR NO KEY UPDATE, and inserting a new message's foreign key wants
 * FOR KEY SHARE; both conflict with FOR UPDATE).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type Pool } from 'pg';

export interface Blocker {
  release(how?: 'commit' | 'rollback'): Promise<void>;
}

/** Opens a transaction on its own connection holding the conversation row FOR UPDATE. */
export async function lockConversation(databaseUrl: string, conversationId: string): Promise<Blocker> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  const locked = await client.query('select id from conversations where id = $1 for update', [conversationId]);
  if (locked.rowCount !== 1) throw new Error(`conversation ${conversationId} was not there to lock`);
  let released = false;
  return {
    async release(how = 'commit') {
      if (released) return;
      released = true;
      try {
        await client.query(how);
      } finally {
        await client.end();
      }
    },
  };
}

/** Waits until a backend of this database waits on a lock in the write path (on conversations); returns its pid. */
export async function waitForLockWaiter(sql: Pool | Client, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql.query<{ pid: number }>(
      `select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid() and (query ilike '%conversations%' or query ilike '%record_tool_results%')`,
    );
    if (rows.length > 0) return rows[0].pid;
    if (Date.now() > deadline) throw new Error(`no backend waited on a lock within ${timeoutMs} ms`);
    await sleep(25); // a pause between reads of pg_stat_activity, not a wait in their place
  }
}

export async function snapshotCount(sql: Pool | Client, toolUseId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>('select count(*)::int as n from message_tool_results where tool_use_id = $1', [
    toolUseId,
  ]);
  return rows[0].n;
}
