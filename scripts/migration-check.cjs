// CI gate: fails when the entities differ from the committed migrations and snapshot.
// Starts a throwaway embedded PostgreSQL, applies the migrations, runs `mikro-orm migration:check`.
const { execFileSync } = require('node:child_process');
const { withThrowawayDatabase } = require('./throwaway-database.cjs');

withThrowawayDatabase('migration_check', (url) => {
  const env = { ...process.env, DATABASE_URL: url };
  execFileSync('npx', ['mikro-orm', 'migration:up'], { env, stdio: 'inherit' });
  execFileSync('npx', ['mikro-orm', 'migration:check'], { env, stdio: 'inherit' });
}).catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
