// Starts the embedded PostgreSQL of `.data/pg` in the foreground and prints its URL, for the
// MikroORM CLI (`DATABASE_URL=… npm run migration:create`). Ctrl-C stops it.
require('@swc-node/register');
const { resolve } = require('node:path');
// The superuser's password is the one `npm start` generates for `.data`, so both share the cluster.
const password = require('../src/config/load-config').secretFile(resolve('.data'), 'pg-superuser-password');
require('../src/database/embedded-postgres')
  .startEmbeddedPostgres({ dataDir: resolve('.data/pg'), port: 54329, password })
  .then(async (pg) => {
    const { Client } = require('pg');
    const c = new Client({ connectionString: pg.url });
    await c.connect();
    const r = await c.query("select 1 from pg_database where datname = 'recall_ledger'");
    if (r.rowCount === 0) await c.query('create database recall_ledger');
    await c.end();
    console.log(pg.url.replace(/\/postgres$/, '/recall_ledger'));
    const stop = () => pg.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
