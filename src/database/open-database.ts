import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import { secretFile } from '../config/load-config';
import { BootstrapRepository } from './bootstrap.repository';
import { assertUtf8Database } from './database-encoding';
import { EMBEDDED_APP_DATABASE, withDatabase } from './database-url';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface OpenDatabase {
  readonly url: string;
  readonly embedded: boolean;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL, with the app's database created once.
 * Either way the database must be UTF8, or the start is refused with what to do.
 */
export async function openDatabase(config: AppConfig, log: (line: string) => void): Promise<OpenDatabase> {
  if (config.database.url) {
    await assertUtf8Database(config.database.url, { external: true });
    return { url: config.database.url, embedded: false, close: () => Promise.resolve() };
  }

  // The superuser's password is generated per data folder, like the service's other secrets.
  const password = secretFile(config.dataDir, 'pg-superuser-password');
  const server = await startEmbeddedPostgres({ dataDir: config.database.embeddedDir, port: config.database.embeddedPort, password });
  log(`embedded PostgreSQL started on port ${config.database.embeddedPort} (data in ${config.database.embeddedDir})`);
  const admin = new Client({ connectionString: server.url });
  try {
    await admin.connect();
    const bootstrap = new BootstrapRepository(admin);
    if (!(await bootstrap.databaseExists(EMBEDDED_APP_DATABASE))) await bootstrap.createDatabase(EMBEDDED_APP_DATABASE);
  } finally {
    await admin.end();
  }
  const url = withDatabase(server.url, EMBEDDED_APP_DATABASE);
  try {
    await assertUtf8Database(url, { embeddedDir: config.database.embeddedDir });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url, embedded: true, close: () => server.stop() };
}
