import { TEMPLATE_ENV, withAdminClient } from './test-database';
import { stopServer } from './test-server';

export default async function globalTeardown(): Promise<void> {
  const template = process.env[TEMPLATE_ENV];
  if (template && (process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL)) {
    await withAdminClient((c) => c.query(`drop database if exists "${template}" with (force)`));
  }
  await stopServer();
}
