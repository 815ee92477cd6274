import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '../../src/database/database-url';
import { REQUEST_ROLE, withCredentials } from '../../src/database/request-role';

/** Set by the global setup: a server URL and the migrated template to clone per test file. */
export const SERVER_URL_ENV = 'RECALL_LEDGER_TEST_SERVER_URL';
export const TEMPLATE_ENV = 'RECALL_LEDGER_TEST_TEMPLATE';
/** The request-time role's password for this run (set by the global setup). */
export const APP_PASSWORD_ENV = 'RECALL_LEDGER_TEST_APP_PASSWORD';
/** The schema owner's password for this run (set by the global setup). */
export const OWNER_PASSWORD_ENV = 'RECALL_LEDGER_TEST_OWNER_PASSWORD';
/**
 * Who owns every schema the tests migrate: a login role with CREATEROLE but neither SUPERUSER
 * nor BYPASSRLS, as the owner is on a managed PostgreSQL, so its own policies (`owner_rows`) and
 * its SECURITY DEFINER functions run under forced row-level security as they do in production.
 */
export const TEST_OWNER_ROLE = 'rl_test_owner';

export interface TestDatabase {
  /** As the schema's owner (TEST_OWNER_ROLE, no superuser): for arranging rows and checking what was written. */
  readonly url: string;
  /**
   * As the server's superuser: only for what no owner may do or see (other roles' sessions and
   * settings, roles themselves) — never to arrange or check rows, which the owner's policies must serve.
   */
  readonly superUrl: string;
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

/** The server as TEST_OWNER_ROLE: the URL migrations and owner-side work connect with. */
export function ownerServerUrl(): string {
  const password = process.env[OWNER_PASSWORD_ENV];
  if (!password) throw new Error(`${OWNER_PASSWORD_ENV} is not set: run the tests through jest's global setup`);
  return withCredentials(serverUrl(), TEST_OWNER_ROLE, password);
}

/** A new database owned by TEST_OWNER_ROLE, cloned from `template` (null: the server's default). */
async function newTestDatabase(template: string | null): Promise<TestDatabase> {
  const name = `rl_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((c) =>
    c.query(`create database "${name}" owner ${TEST_OWNER_ROLE}${template === null ? '' : ` template "${template}"`}`),
  );
  const url = withDatabase(ownerServerUrl(), name);
  const password = process.env[APP_PASSWORD_ENV];
  if (!password) throw new Error(`${APP_PASSWORD_ENV} is not set`);
  const drop = () => withAdminClient((c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => undefined);
  try {
    await refuseSuperuserOwner(url);
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, url, superUrl: withDatabase(serverUrl(), name), appUrl: withCredentials(url, REQUEST_ROLE, password), drop };
}

/**
 * Refuses to test a schema whose owner could skip row-level security: a superuser or BYPASSRLS
 * owner passes every policy, so a test through it proves nothing about the owner's own policies.
 */
export async function refuseSuperuserOwner(ownerUrl: string): Promise<void> {
  const client = new Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ role: string; superuser: boolean; bypassRls: boolean; ownsDatabase: boolean }>(
      `select r.rolname as role, r.rolsuper as superuser, r.rolbypassrls as "bypassRls", d.datdba = r.oid as "ownsDatabase"
         from pg_roles r, pg_database d where r.rolname = current_user and d.datname = current_database()`,
    );
    const [me] = rows;
    if (me.superuser || me.bypassRls || !me.ownsDatabase) {
      throw new Error(
        `Tests run with the schema owned by a role with neither SUPERUSER nor BYPASSRLS, as production's owner; ` +
          `${me.role} is ${me.superuser ? 'a superuser' : me.bypassRls ? 'BYPASSRLS' : 'not the owner of this database'}.`,
      );
    }
  } finally {
    await client.end();
  }
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
