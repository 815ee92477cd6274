import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { APP_ENTITIES } from '../../src/app-entities';
import { ormOptions } from '../../src/database/orm-options';
import { closedAtFileEnd, closeEach } from './file-resources';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestOrm {
  readonly orm: MikroORM;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

/**
 * MikroORM on a fresh database cloned from the template, for medium tests of repositories and
 * services. Closed at the end of the test file if the file does not close it (file-resources.ts).
 */
export function createTestOrm(extra: Partial<Options> = {}): Promise<TestOrm> {
  return closedAtFileEnd(startTestOrm(extra));
}

async function startTestOrm(extra: Partial<Options>): Promise<TestOrm> {
  const database = await createTestDatabase();
  let orm: MikroORM;
  try {
    orm = await MikroORM.init({ ...ormOptions({ url: database.url, entities: APP_ENTITIES }), ...extra });
  } catch (error) {
    await database.drop().catch(() => undefined);
    throw error;
  }
  return {
    orm,
    database,
    close: () => closeEach([() => orm.close(true), () => database.drop()]),
  };
}

/** MikroORM options that collect every executed SQL statement into `statements`. */
export function captureSql(statements: string[]): Partial<Options> {
  return { debug: ['query', 'query-params'], logger: (message: string) => statements.push(message) };
}
