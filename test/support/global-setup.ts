import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { withDatabase } from '../../src/database/database-url';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { ormOptions } from '../../src/database/orm-options';
import { randomBytes } from 'node:crypto';
import { BootstrapRepository } from '../../src/database/bootstrap.repository';
import { REQUEST_ROLE } from '../../src/database/request-role';
import {
  APP_PASSWORD_ENV,
  OWNER_PASSWORD_ENV,
  ownerServerUrl,
  refuseSuperuserOwner,
  SERVER_URL_ENV,
  TEMPLATE_ENV,
  TEST_OWNER_ROLE,
  withAdminClient,
} from './test-database';
import { AUDIT_LOG_DIR_ENV, AUDIT_LOG_FOLDER, AUDIT_SERVER_SETTINGS, enableQueryAudit, queryAuditDecision } from './query-audit/collector';
import { registerServer } from './test-server';
import { freePort } from './free-port';

/**
 * Starts one PostgreSQL for the whole run (embedded, unless TEST_DATABASE_URL or DATABASE_URL
 * names a server), migrates a template database once, and tells the test files where it is.
 */
export default async function globalSetup(): Promise<void> {
  const external = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  // The query audit (R-TN-9): the request role's plans, logged by the embedded server, read back at the end.
  const audit = queryAuditDecision(process.env, external !== undefined);
  if (audit.line) console.log(`\n${audit.line}`);
  let url: string;
  if (external) {
    url = external;
  } else {
    const parent = mkdtempSync(join(tmpdir(), 'recall-ledger-test-'));
    chmodSync(parent, 0o755); // the postgres system user must reach its data folder
    const port = await freePort();
    const dataDir = join(parent, 'pg');
    const server = await startEmbeddedPostgres({
      dataDir,
      port,
      password: randomBytes(24).toString('base64url'),
      settings: audit.audit ? AUDIT_SERVER_SETTINGS : undefined,
    });
    registerServer(server, parent);
    url = server.url;
    if (audit.audit) process.env[AUDIT_LOG_DIR_ENV] = join(dataDir, AUDIT_LOG_FOLDER);
  }
  process.env[SERVER_URL_ENV] = url;

  // The schema's owner: no superuser, as on a managed PostgreSQL (see TEST_OWNER_ROLE).
  process.env[OWNER_PASSWORD_ENV] = randomBytes(24).toString('base64url');
  await withAdminClient(async (c) => {
    const exists = await c.query('select 1 from pg_roles where rolname = $1', [TEST_OWNER_ROLE]);
    if (exists.rowCount === 0) await c.query(`create role ${TEST_OWNER_ROLE} createrole nosuperuser nobypassrls`);
    await new BootstrapRepository(c).setLoginPassword(TEST_OWNER_ROLE, process.env[OWNER_PASSWORD_ENV] as string);
    // What a managed PostgreSQL's admin user holds beside CREATEROLE: tests watch and end the request role's sessions.
    await c.query(`grant pg_read_all_stats, pg_signal_backend to ${TEST_OWNER_ROLE}`);
    // On a server an earlier run left the request role on, the owner must still be able to set its password.
    const app = await c.query('select 1 from pg_roles where rolname = $1', [REQUEST_ROLE]);
    if (app.rowCount !== 0) await c.query(`grant ${REQUEST_ROLE} to ${TEST_OWNER_ROLE} with admin option, inherit false, set false`);
  });

  const template = `rl_template_${process.pid}`;
  process.env[TEMPLATE_ENV] = template;
  await withAdminClient(async (c) => {
    await c.query(`drop database if exists "${template}"`);
    await c.query(`create database "${template}" owner ${TEST_OWNER_ROLE}`);
  });
  const templateUrl = withDatabase(ownerServerUrl(), template);
  await refuseSuperuserOwner(templateUrl);
  const orm = await MikroORM.init({ ...ormOptions({ url: templateUrl }), debug: false });
  try {
    await orm.migrator.up();
  } finally {
    await orm.close(true);
    forgetOrmGlobals();
  }
  // The services under test connect as the request-time role row-level security applies to (R-TN-8),
  // with one password for the whole run (a role is the server's, not a database's).
  const password = randomBytes(24).toString('base64url');
  await withAdminClient(async (c) => {
    await new BootstrapRepository(c).setLoginPassword(REQUEST_ROLE, password);
    if (process.env[AUDIT_LOG_DIR_ENV]) await enableQueryAudit(c);
  });
  process.env[APP_PASSWORD_ENV] = password;
  // A service a test starts as a process (`npm start`'s path) finds the role ready and leaves it.
  process.env.DATABASE_APP_PASSWORD = password;
}

/**
 * MikroORM keeps entity metadata on globalThis, and jest copies this process's globals into
 * every test sandbox; left here, they hold Maps of another realm and break discovery there.
 */
function forgetOrmGlobals(): void {
  const globals = globalThis as Record<string, unknown>;
  for (const key of Object.keys(globals)) {
    if (key.startsWith('mikro-orm-')) delete globals[key];
  }
}
