// A throwaway embedded PostgreSQL with one empty database, for the CI gates that migrate a schema
// from nothing (scripts/migration-check.cjs, scripts/schema-sql.cjs). The server and its folder are
// gone once `work` settles.
const { randomBytes } = require('node:crypto');
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
require('@swc-node/register');
const { startEmbeddedPostgres } = require('../src/database/embedded-postgres');
const { freePort } = require('../test/support/free-port');

/** Calls `work` with the URL of a new database `name` (a plain identifier) on a new server. */
async function withThrowawayDatabase(name, work) {
  const folder = mkdtempSync(join(tmpdir(), `rl-${name.replace(/_/g, '-')}-`));
  chmodSync(folder, 0o755); // as root, the postgres system user must reach its data folder
  const server = await startEmbeddedPostgres({
    dataDir: join(folder, 'pg'),
    port: await freePort(),
    password: randomBytes(24).toString('base64url'),
  });
  try {
    const admin = new Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    return await work(server.url.replace(/\/postgres$/, `/${name}`));
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Applies every migration to the empty database at `url` in this process, as the service does at
 * start-up, without rewriting the committed snapshot (only `migration:create` should).
 */
async function migrate(url) {
  const { MikroORM } = require('@mikro-orm/postgresql');
  const { ormOptions } = require('../src/database/orm-options');
  const options = ormOptions({ url });
  const orm = await MikroORM.init({ ...options, migrations: { ...options.migrations, snapshot: false } });
  try {
    await orm.migrator.up();
  } finally {
    await orm.close(true);
  }
}

/** Calls `work` with the URL of a new database `name` on a new server, every migration applied. */
function withMigratedDatabase(name, work) {
  return withThrowawayDatabase(name, async (url) => {
    await migrate(url);
    return work(url);
  });
}

module.exports = { withThrowawayDatabase, withMigratedDatabase };
