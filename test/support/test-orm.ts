import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { APP_ENTITIES } from '../../src/app-entities';
import { ormOptions } from '../../src/database/orm-options';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestOrm {
  readonly orm: MikroORM;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

/** MikroORM on a fresh database cloned from the template, for medium tests of repositories and services. */
export async function createTestOrm(extra: Partial<Options> = {}): Promise<TestOrm> {
  const database = await createTestDatabase();
  const orm = await MikroORM.init({ ...ormOptions({ url: database.url, entities: APP_ENTITIES }), ...extra });
  return {
    orm,
    database,
    async close() {
      await orm.close(true);
      await database.drop();
    },
  };
}

/** MikroORM options that collect every executed SQL statement into `statements`. */
export function captureSql(statements: string[]): Partial<Options> {
  return { debug: ['query', 'query-params'], logger: (message: string) => statements.push(message) };
}
