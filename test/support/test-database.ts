import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '../../src/database/database-url';

/** Set by the global setup: a server URL and the migrated template to clone per test file. */
export const SERVER_URL_ENV = 'RECALL_LEDGER_TEST_SERVER_URL';
export const TEMPLATE_ENV = 'RECALL_LEDGER_TEST_TEMPLATE';

export interface TestDatabase {
  readonly url: string;
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
  const name = `rl_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((c) => c.query(`create database "${name}" template "${template}"`));
  return {
    name,
    url: withDatabase(serverUrl(), name),
    drop: () => withAdminClient((c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
