import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Migration } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from '../../src/database/orm-options';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ROOT = join(__dirname, '..', '..');

/**
 * `npm run schema:sql -- --check` (CI's step) against a database of this run, migrated by the
 * global setup: the embedded PostgreSQL, so the same server version schema.sql was read from.
 */
async function checkSchemaSql(url: string): Promise<{ code: number; output: string }> {
  const script = join(ROOT, 'scripts', 'schema-sql.cjs');
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, '--check', '--database-url', url], { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** What the next migration would be: one that changes the schema (here, a new function). */
class PlantedMigration extends Migration {
  override async up(): Promise<void> {
    this.addSql('create function planted_drift() returns integer language sql immutable as $$ select 1 $$;');
  }
}

describe('schema.sql', () => {
  let db: TestDatabase | undefined;

  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it('the current schema is readable in one place: schema.sql is what the migrations produce', async () => {
    db = await createTestDatabase();

    const { code, output } = await checkSchemaSql(db.url);

    // Else: run `npm run schema:sql` and commit schema.sql (the output says what differs).
    expect({ code, output }).toEqual({ code: 0, output: 'schema.sql is what the migrations produce.\n' });
  });

  it('the current schema is readable in one place: a migration that changes the schema fails the check until schema.sql is regenerated', async () => {
    db = await createTestDatabase();
    const options = ormOptions({ url: db.url });
    const orm = await MikroORM.init({
      ...options,
      migrations: {
        ...options.migrations,
        snapshot: false,
        migrationsList: [{ name: 'Migration20991231000000', class: PlantedMigration }],
      },
    });
    try {
      expect((await orm.migrator.up()).map((m) => m.name)).toEqual(['Migration20991231000000']);
    } finally {
      await orm.close(true);
    }

    const { code, output } = await checkSchemaSql(db.url);

    expect(code).toBe(1);
    expect(output).toContain('schema.sql is not what the migrations produce');
    expect(output).toContain('+CREATE OR REPLACE FUNCTION public.planted_drift()');
    expect(output).toContain('run npm run schema:sql and commit schema.sql');
  });
});
