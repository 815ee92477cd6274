import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '../../src/database/database-url';
import { REQUEST_ROLE, withCredentials } from '../../src/database/request-role';

/** Set by the global setup: a server URL and the migrated template to clone per test file. */
export const SERVER_URL_ENV = 'RECALL_LEDGER_TEST_SERVER_URL';
export const TEMPLATE_ENV = 'RECALL_LEDGER_TEST_TEMPLATE';
/** The request-time role's password for this run (set by the global setup). */
export const APP_PASSWORD_ENV = 'RECALL_LEDGER_TEST_APP_PASSWORD';

export interface TestDatabase {
  /** As the owner (superuser): for arranging rows and checking what was written. */
  readonly url: string;
  /** The same database as the request-time role the service connects with (R-TN-8). */
  readonly appUrl: string;
  readonly name: string;
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = process.env[SERVER_URL_ENV];
  if (!url) throw new Error(`${SERVER_URL_ENV} is not set: run the tests through jest's global setup`);
  return url;
}

export async function withAdminClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from the migrated template: each test file gets its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_ENV];
  if (!template) throw new Error(`${TEMPLATE_ENV} is not set`);
  return newTestDatabase(template);
}

/**
 * A fresh database with no schema at all (the server's default template, not the migrated one):
 * for a test that migrates it itself, e.g. only as far as an earlier release did.
 */
export function createEmptyTestDatabase(): Promise<TestDatabase> {
  return newTestDatabase(null);
}

/** A new database, cloned from `template` (null: the server's default). */
async function newTestDatabase(template: string | null): Promise<TestDatabase> {
  const name = `rl_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((c) => c.query(`create database "${name}"${template === null ? '' : ` template "${template}"`}`));
  const url = withDatabase(serverUrl(), name);
  const password = process.env[APP_PASSWORD_ENV];
  if (!password) throw new Error(`${APP_PASSWORD_ENV} is not set`);
  return {
    name,
    url,
    appUrl: withCredentials(url, REQUEST_ROLE, password),
    drop: () => withAdminClient((c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

/**
 * A fresh migrated database and an owner's connection to it for the enclosing `describe`, opened
 * before its tests and closed and dropped after them. The fields are set once `beforeAll` has run.
 */
export function ownerConnection(): { readonly db: TestDatabase; readonly client: Client } {
  const state = {} as { db: TestDatabase; client: Client };
  beforeAll(async () => {
    state.db = await createTestDatabase();
    state.client = new Client({ connectionString: state.db.url });
    await state.client.connect();
  });
  afterAll(async () => {
    await state.client?.end();
    await state.db?.drop();
  });
  return state;
}
