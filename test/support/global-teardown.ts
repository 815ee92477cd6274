import { auditRun } from './query-audit/collector';
import { TEMPLATE_ENV, withAdminClient } from './test-database';
import { stopServer } from './test-server';

export default async function globalTeardown(): Promise<void> {
  const template = process.env[TEMPLATE_ENV];
  if (template && (process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL)) {
    await withAdminClient((c) => c.query(`drop database if exists "${template}" with (force)`));
  }
  // The query audit reads the server's log once the server has stopped (and written all of it).
  let failure: Error | undefined;
  await stopServer(async () => {
    failure = await auditRun();
  });
  if (failure) throw failure;
}
