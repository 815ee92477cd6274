// `npm run schema:sql`: writes schema.sql, the schema every migration in migrations/ produces, read
// from a throwaway embedded PostgreSQL migrated from empty (scripts/schema-dump.cjs says how).
//   --check             compare instead of writing: exit 1, with the difference, when schema.sql is stale (CI)
//   --database-url URL  read that database, already migrated, instead (the tests pass a clone of their template)
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { Client } = require('pg');
const { dumpSchema } = require('./schema-dump.cjs');

const target = join(resolve(__dirname, '..'), 'schema.sql');

async function dumpDatabase(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  return dumpSchema(client).finally(() => client.end());
}

/** `diff -u` of the checked-in file and the fresh text, cut to what a CI log can show. */
function difference(current, fresh) {
  const folder = mkdtempSync(join(tmpdir(), 'rl-schema-sql-'));
  try {
    writeFileSync(join(folder, 'committed'), current);
    writeFileSync(join(folder, 'migrated'), fresh);
    const diff = spawnSync('diff', ['-u', '--label', 'schema.sql', '--label', 'migrated database', 'committed', 'migrated'], {
      cwd: folder,
      encoding: 'utf8',
    });
    const lines = (diff.stdout ?? '').split('\n');
    return lines.length > 200 ? [...lines.slice(0, 200), `… ${lines.length - 200} more lines`].join('\n') : lines.join('\n');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function main(args) {
  const check = args.includes('--check');
  const at = args.indexOf('--database-url');
  const url = at >= 0 ? args[at + 1] : undefined;
  const unknown = args.filter((arg, i) => arg !== '--check' && i !== at && i !== at + 1);
  if (unknown.length > 0 || (at >= 0 && !url)) throw new Error(`usage: node scripts/schema-sql.cjs [--check] [--database-url URL]`);

  // Required here, not above: it registers swc and loads the embedded PostgreSQL, which --database-url needs neither of.
  const { withMigratedDatabase } = url ? {} : require('./throwaway-database.cjs');
  const fresh = url
    ? await dumpDatabase(url)
    : await withMigratedDatabase('schema_sql', async (empty) => {
        return dumpDatabase(empty);
      });

  if (!check) {
    writeFileSync(target, fresh);
    console.log(`wrote schema.sql (${fresh.split('\n').length - 1} lines)`);
    return;
  }
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current === fresh) {
    console.log('schema.sql is what the migrations produce.');
    return;
  }
  console.error(`schema.sql is not what the migrations produce:\n${difference(current, fresh)}`);
  console.error('run npm run schema:sql and commit schema.sql');
  // Not process.exitCode: the embedded PostgreSQL's exit hook ends the process with 0 on beforeExit.
  process.exit(1);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
