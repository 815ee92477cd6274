// CI gate: fails when the entities differ from the committed migrations and snapshot.
// Starts a throwaway embedded PostgreSQL, applies the migrations, runs `mikro-orm migration:check`.
const { execFileSync } = require('node:child_process');
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
require('@swc-node/register');
const { startEmbeddedPostgres } = require('../src/database/embedded-postgres');

async function main() {
  const folder = mkdtempSync(join(tmpdir(), 'rl-migration-check-'));
  chmodSync(folder, 0o755);
  const server = await startEmbeddedPostgres({ dataDir: join(folder, 'pg'), port: 45000 + Math.floor(Math.random() * 5000) });
  try {
    const admin = new Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('create database migration_check');
    await admin.end();
    const env = { ...process.env, DATABASE_URL: server.url.replace(/\/postgres$/, '/migration_check') };
    execFileSync('npx', ['mikro-orm', 'migration:up'], { env, stdio: 'inherit' });
    execFileSync('npx', ['mikro-orm', 'migration:check'], { env, stdio: 'inherit' });
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
