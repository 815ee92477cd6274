import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { AppModule } from '../../src/app.module';
import type { AppConfig } from '../../src/config/app-config';
import { loadConfig } from '../../src/config/load-config';
import { APP_OPTIONS, configureApp } from '../../src/configure-app';
import { createRootLogger } from '../../src/observability/logger';
import { signToken } from '../../src/tenancy/token-signer';
import { closedAtFileEnd, closeEach } from './file-resources';
import { createTestDatabase, type TestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-000';

export interface TestApp {
  readonly app: NestExpressApplication;
  readonly config: AppConfig;
  readonly database: TestDatabase;
  /** Direct SQL on the test file's database, for arranging rows and checking what was written. */
  readonly sql: Pool;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** The URL the service connects with, given the test database's request-role URL (e.g. the same database through PgBouncer). */
  connect?: (databaseUrl: string, config: AppConfig) => Promise<string>;
  /** The database to start on, instead of a fresh clone of the template; closing the app drops it, as it would the clone. */
  database?: TestDatabase;
}

/** The configuration every test instance of the service runs with, `env` on top. */
function testAppConfig(env: Record<string, string>): AppConfig {
  return loadConfig({
    NODE_ENV: 'test',
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    FEATURE_FLAG_CACHE_TTL_MS: '0',
    // Sweeps run when a test asks (runRetentionSweep), not on the clock.
    RETENTION_ENABLED: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
}

/** The service's HTTP stack, as `npm start` builds it, on `databaseUrl`; closed again if it fails to start. */
async function startApp(config: AppConfig, databaseUrl: string): Promise<NestExpressApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config, databaseUrl)] }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(APP_OPTIONS);
  try {
    configureApp(app, config, createRootLogger(config.logLevel));
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/**
 * The whole service (same HTTP stack as `npm start`) on a fresh database cloned from the template.
 * Closed at the end of the test file if the file does not close it (file-resources.ts).
 */
export function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  return closedAtFileEnd(startTestApp(env, options));
}

/** What createTestApp starts; a step that fails releases what the earlier ones opened. */
async function startTestApp(env: Record<string, string>, options: TestAppOptions): Promise<TestApp> {
  const config = testAppConfig(env);
  const database = options.database ?? (await createTestDatabase());
  let app: NestExpressApplication;
  try {
    const serviceUrl = options.connect ? await options.connect(database.appUrl, config) : database.appUrl;
    app = await startApp(config, serviceUrl);
  } catch (error) {
    await database.drop().catch(() => undefined);
    throw error;
  }
  const sql = new Pool({ connectionString: database.url, max: 4 });
  // The server may end an idle connection of this pool (a test terminating backends, the database
  // being dropped with force); the pool drops it and opens another. Unheard, the error would crash
  // whichever test file this worker runs next.
  sql.on('error', () => undefined);

  return {
    app,
    config,
    database,
    sql,
    close: () => closeEach([() => app.close(), () => sql.end(), () => database.drop()]),
  };
}

export interface Replica {
  readonly app: NestExpressApplication;
  close(): Promise<void>;
}

/** Another instance of the service on `t`'s database, as a second replica would be; `env` as for createTestApp. */
export function createReplica(t: TestApp, env: Record<string, string> = {}): Promise<Replica> {
  return closedAtFileEnd(startApp(testAppConfig(env), t.database.appUrl).then((app) => ({ app, close: () => app.close() })));
}

export interface TestIdentity {
  userId: string;
  teamId: string;
  token: string;
}

/** Mints a token for a user of a team with the given scopes (random ids unless given). */
export async function identity(scopes: string[], ids: Partial<Pick<TestIdentity, 'userId' | 'teamId'>> = {}): Promise<TestIdentity> {
  const userId = ids.userId ?? crypto.randomUUID();
  const teamId = ids.teamId ?? crypto.randomUUID();
  const token = await signToken({ userId, teamId, scopes, secret: TEST_JWT_SECRET });
  return { userId, teamId, token };
}
