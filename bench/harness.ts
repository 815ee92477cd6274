import 'reflect-metadata';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { AppModule } from '../src/app.module';
import { loadConfig } from '../src/config/load-config';
import { configureApp } from '../src/configure-app';
import { withDatabase } from '../src/database/database-url';
import { type RunningPostgres, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { createRootLogger } from '../src/observability/logger';

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
  let server: RunningPostgres = await startEmbeddedPostgres({ dataDir, port });
  let running = true;
  teardown.add('stop PostgreSQL', async () => {
    if (running) await server.stop();
  });

  // Loading a million rows writes a lot of WAL: fewer forced checkpoints. Nothing else is tuned.
  const settings = ["alter system set max_wal_size = '8GB'"];
  if (pgStatStatements) settings.push("alter system set shared_preload_libraries = 'pg_stat_statements'");
  await withClient(server.url, async (c) => {
    for (const sql of settings) await c.query(sql);
    await c.query('select pg_reload_conf()');
    await c.query(`create database ${DATABASE}`);
  });
  if (pgStatStatements) {
    running = false;
    await server.stop();
    server = await startEmbeddedPostgres({ dataDir, port });
    running = true;
  }
  const url = withDatabase(server.url, DATABASE);
  if (pgStatStatements) await withClient(url, (c) => c.query('create extension if not exists pg_stat_statements'));
  return { url, pgStatStatements, folder };
}

export interface RunningService {
  baseUrl: URL;
  app: NestExpressApplication;
}

/** The real service in this process, the way `npm start` runs it, on 127.0.0.1 and a free port. */
export async function startService(teardown: Teardown, databaseUrl: string, dataDir: string): Promise<RunningService> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: BENCH_JWT_SECRET,
    // Production logs one access line per request at info; the bench keeps the console readable.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl), { bufferLogs: true });
  teardown.add('close the service', () => app.close());
  configureApp(app, config, createRootLogger(config.logLevel));
  await app.listen(0, '127.0.0.1'); // the app applies the migrations during init
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { baseUrl: new URL(`http://127.0.0.1:${port}`), app };
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
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
