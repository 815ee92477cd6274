import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../support/free-port';

/** Where Debian's package puts it; `PGBOUNCER_BIN` overrides. */
const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';
/** By its path: a shell's PATH (a user's, or `env -i`'s) may leave out /usr/sbin. */
const RUNUSER_BIN = '/usr/sbin/runuser';

export function pgbouncerInstalled(): boolean {
  return existsSync(PGBOUNCER_BIN);
}

export interface RunningPgBouncer {
  /** The same database, through PgBouncer. */
  readonly url: string;
  /** PgBouncer's admin console (SHOW STATS, SHOW POOLS). */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50)); // a pause between attempts to connect
  }
}

/**
 * Starts PgBouncer in transaction-pooling mode in front of the database of `targetUrl`. The
 * driver's `statement_timeout` start-up parameter is ignored there (PgBouncer refuses unknown
 * ones); `connect_query` gives every server connection the timeout instead (see docs/operations.md, behind PgBouncer).
 * PgBouncer refuses to run as root, so as root it runs as the `postgres` user.
 */
export async function startPgBouncer(targetUrl: string, statementTimeoutMs: number): Promise<RunningPgBouncer> {
  const target = new URL(targetUrl);
  const database = target.pathname.slice(1);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const dir = mkdtempSync(join(tmpdir(), 'rl-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port} dbname=${database} connect_query='SET statement_timeout = ${statementTimeoutMs}'`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = plain',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      'default_pool_size = 10',
      'max_client_conn = 200',
      'ignore_startup_parameters = statement_timeout,extra_float_digits',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, file), uid, gid);
  }
  const command = asRoot ? RUNUSER_BIN : PGBOUNCER_BIN;
  const args = asRoot ? ['-u', 'postgres', '--', PGBOUNCER_BIN, join(dir, 'pgbouncer.ini')] : [join(dir, 'pgbouncer.ini')];
  const child: ChildProcess = spawn(command, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPort(port, 10_000);
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const adminUrl = new URL(url);
  adminUrl.pathname = '/pgbouncer';
  return {
    url: url.toString(),
    adminUrl: adminUrl.toString(),
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
