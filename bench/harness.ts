import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { withDatabase } from '../src/database/database-url';
import { type RunningPostgres, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import type { ServiceMessage, ServiceReply } from './service-process';

export const BENCH_JWT_SECRET = 'bench-secret-that-is-long-enough-for-hs256-0001';
const DATABASE = 'recall_bench';

/** Cleanups run in reverse order of registration, each guarded, whatever failed before. */
export class Teardown {
  private readonly steps: { name: string; run: () => Promise<void> | void }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  /** Runs once; a second caller waits for the same run to finish. */
  run(): Promise<void> {
    this.running ??= this.runSteps();
    return this.running;
  }

  private async runSteps(): Promise<void> {
    for (const step of [...this.steps].reverse()) {
      try {
        await step.run();
      } catch (error) {
        console.error(`cleanup "${step.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

export interface BenchDatabase {
  /** The bench database, for the loader and the raw side. */
  url: string;
  pgStatStatements: boolean;
  /** The temp folder (removed at teardown); also the service's DATA_DIR. */
  folder: string;
}

/**
 * An embedded PostgreSQL in a temp folder on a free loopback port, with a fresh database.
 * With `pgStatStatements` the server is restarted once to preload the extension.
 */
export async function startDatabase(teardown: Teardown, pgStatStatements: boolean): Promise<BenchDatabase> {
  const folder = mkdtempSync(join(tmpdir(), 'recall-ledger-bench-'));
  chmodSync(folder, 0o755); // as root, the postgres system user must reach its data folder
  teardown.add('remove temp folder', () => rmSync(folder, { recursive: true, force: true }));
  const dataDir = join(folder, 'pg');
  const port = await freePort();
  const password = randomBytes(24).toString('base64url');
  let server: RunningPostgres = await startEmbeddedPostgres({ dataDir, port, password });
  let running = true;
  teardown.add('stop PostgreSQL', async () => {
    if (running) await server.stop();
  });

  // Loading a million rows writes a lot of WAL: fewer forced checkpoints. Nothing else is tuned.
  const settings = ["alter system set max_wal_size = '8GB'"];
  // 'all': the statements inside record_tool_results show up too, not only the call; and planning time.
  if (pgStatStatements) {
    settings.push(
      "alter system set shared_preload_libraries = 'pg_stat_statements'",
      "alter system set pg_stat_statements.track = 'all'",
      'alter system set pg_stat_statements.track_planning = on',
    );
  }
  await withClient(server.url, async (c) => {
    for (const sql of settings) await c.query(sql);
    await c.query('select pg_reload_conf()');
    await c.query(`create database ${DATABASE}`);
  });
  if (pgStatStatements) {
    running = false;
    await server.stop();
    server = await startEmbeddedPostgres({ dataDir, port, password });
    running = true;
  }
  const url = withDatabase(server.url, DATABASE);
  if (pgStatStatements) await withClient(url, (c) => c.query('create extension if not exists pg_stat_statements'));
  return { url, pgStatStatements, folder };
}

export interface RunningService {
  baseUrl: URL;
  /** The service's process id, for its CPU time. */
  pid: number;
  /** Starts the CPU profiler in the service (BENCH_PROFILE=1). */
  startProfile(): Promise<void>;
  /** Stops it and writes the profile (a `.cpuprofile`, as `--cpu-prof` writes) to `file`. */
  stopProfile(file: string): Promise<void>;
  /** A full garbage collection in the service; its memory after it. */
  collectGarbage(): Promise<NodeJS.MemoryUsage>;
  /** The longest the service's event loop was held since the last call (its delay monitor's largest, to within 1 ms), ms. */
  longestLoopHoldMs(): Promise<number>;
  /** Writes a heap snapshot of the service to `file` (V8 collects garbage first); its memory after it. */
  heapSnapshot(file: string): Promise<NodeJS.MemoryUsage>;
  /** Closes the app and waits for its process to exit (also done at teardown). */
  stop(): Promise<void>;
}

/**
 * The real service in a process of its own, the way `npm start` runs it, on 127.0.0.1 and a free
 * port: its CPU and event loop are its own, not shared with the load generator. A variable that
 * `env` sets to undefined is not passed at all, so the service takes its own default. `tree`, the
 * root of another checkout: its service runs (its code, its packages), on the same database.
 */
export async function startService(
  teardown: Teardown,
  databaseUrl: string,
  dataDir: string,
  env: Record<string, string | undefined> = {},
  tree?: string,
): Promise<RunningService> {
  const child = fork(tree === undefined ? join(__dirname, 'service-process.ts') : join(tree, 'bench', 'service-process.ts'), [], {
    cwd: tree,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: BENCH_JWT_SECRET,
      // Production on a DATABASE_URL: the request role's password is given, as every replica would be.
      DATABASE_APP_PASSWORD: 'bench-request-role-password',
      // Production logs one access line per request at info; the bench keeps the console readable.
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      // The bench is one team at BENCH_CONCURRENCY: admission lets a team alone use the replica
      // (R-TN-11), but the per-team share of the pool would turn its rows into a measure of that
      // limit. A run that sets it measures it.
      TEAM_MAX_DB_CONNECTIONS: process.env.TEAM_MAX_DB_CONNECTIONS ?? process.env.DB_POOL_MAX ?? '20',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.send({ type: 'close' } satisfies ServiceMessage);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  teardown.add('stop the service', stop);
  const next = (): Promise<ServiceReply> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the service exited (${code}) before it answered`));
      child.once('exit', onExit);
      child.once('message', (message: ServiceReply) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  const ask = async (message: ServiceMessage): Promise<NodeJS.MemoryUsage | undefined> => {
    const answer = next();
    child.send(message);
    const got = await answer;
    if (got.type === 'failed') throw new Error(`service: ${got.message}`);
    return got.type === 'done' ? got.memory : undefined;
  };
  const memoryAfter = async (message: ServiceMessage): Promise<NodeJS.MemoryUsage> => {
    const memory = await ask(message);
    if (!memory) throw new Error(`service: no memory figures after ${message.type}`);
    return memory;
  };
  const ready = await next();
  if (ready.type !== 'ready') throw new Error(`the service did not start: ${ready.type === 'failed' ? ready.message : ready.type}`);
  return {
    baseUrl: new URL(`http://127.0.0.1:${ready.port}`),
    pid: child.pid ?? 0,
    startProfile: async () => void (await ask({ type: 'profile-start' })),
    stopProfile: async (file) => void (await ask({ type: 'profile-stop', file })),
    collectGarbage: () => memoryAfter({ type: 'collect-garbage' }),
    heapSnapshot: (file) => memoryAfter({ type: 'heap-snapshot', file }),
    longestLoopHoldMs: async () => {
      const answer = next();
      child.send({ type: 'loop-hold' } satisfies ServiceMessage);
      const got = await answer;
      if (got.type !== 'done' || got.holdMs === undefined) throw new Error('service: no loop-hold figure');
      return got.holdMs;
    },
    stop,
  };
}

export interface OtlpSink {
  /** The OTLP/HTTP traces address to give a service (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  endpoint: string;
  /** Export requests and their bytes received so far. */
  received(): { requests: number; bytes: number };
}

/**
 * A collector that takes OTLP/HTTP exports and drops them (200, nothing decoded): a traced
 * service's exporter does its whole work, the sink costs the bench process next to nothing.
 */
export async function startOtlpSink(teardown: Teardown): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const server = createHttpServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  teardown.add('stop the OTLP sink', () => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}/v1/traces`, received: () => ({ requests, bytes }) };
}

export interface RunningBareStack {
  baseUrl: URL;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The bare stack (bare-app-process.ts) in a process of its own on 127.0.0.1, with `adapter`
 * (`express`, the service's, or `fastify`), on the database at `databaseUrl`.
 */
export async function startBareStack(teardown: Teardown, databaseUrl: string, adapter: 'express' | 'fastify'): Promise<RunningBareStack> {
  const child = fork(join(__dirname, 'bare-app-process.ts'), [adapter], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.send({ type: 'close' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  teardown.add(`stop the bare ${adapter} stack`, stop);
  const ready = await new Promise<{ type: string; port?: number; message?: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare ${adapter} stack exited (${code}) before it answered`)));
    child.once('message', resolve);
  });
  if (ready.type !== 'ready' || !ready.port) throw new Error(`the bare ${adapter} stack did not start: ${ready.message ?? ready.type}`);
  return { baseUrl: new URL(`http://127.0.0.1:${ready.port}`), pid: child.pid ?? 0, stop };
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A bench-like script's life: `run` with a Teardown that runs whatever happens (a signal, the
 * watchdog past `limitMs`, a failure), then the process exits 0 when `run` answered true, 1 when
 * it answered false or failed (`failedMessage` said why), 2 past the limit, 128+n on a signal.
 */
export async function runToCompletion(
  name: string,
  limitMs: number,
  run: (teardown: Teardown) => Promise<boolean>,
  failedMessage: string,
): Promise<never> {
  const teardown = new Teardown();
  let stopped: number | undefined;
  const stop = (code: number) => () => {
    stopped ??= code;
    void teardown.run().finally(() => process.exit(code));
  };
  process.once('SIGINT', stop(130));
  process.once('SIGTERM', stop(143));
  const watchdog = setTimeout(() => {
    console.error(`${name}: over the ${Math.round(limitMs / 1000)} s limit, stopping`);
    stop(2)();
  }, limitMs);
  let code = 1;
  try {
    code = (await run(teardown)) ? 0 : 1;
    if (code !== 0) console.log(failedMessage);
  } catch (error) {
    if (stopped === undefined) console.error(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    clearTimeout(watchdog);
    await teardown.run();
  }
  process.exit(stopped ?? code);
}
