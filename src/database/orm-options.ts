import { join } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { FEEDBACK_ENTITIES } from '../feedback/entities';
import { RECALL_ENTITIES } from '../recall/entities';
import { RETENTION_ENTITIES } from '../retention/entities';
import { TENANCY_ENTITIES } from '../tenancy/entities';
import { TOOL_RESULT_ENTITIES } from '../tool-results/entities';

// MikroORM's own TypeScript detection misses @swc/jest; decide from our own file name.
const isTs = __filename.endsWith('.ts');

export interface OrmConnectionOptions {
  url: string;
  poolMax?: number;
  acquireTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Where MikroORM's own messages (the migrator's) go; silent by default. */
  log?: (message: string) => void;
}

export const ENTITIES = [...TENANCY_ENTITIES, ...TOOL_RESULT_ENTITIES, ...RECALL_ENTITIES, ...FEEDBACK_ENTITIES, ...RETENTION_ENTITIES];

export function ormOptions(connection: OrmConnectionOptions): Options {
  return defineConfig({
    clientUrl: connection.url,
    entities: ENTITIES,
    extensions: [Migrator],
    forceUtcTimezone: true,
    colors: false,
    logger: connection.log ?? (() => undefined),
    allowGlobalContext: false,
    preferTs: isTs,
    pool: {
      min: 0,
      max: connection.poolMax ?? 20,
      acquireTimeoutMillis: connection.acquireTimeoutMs ?? 5000,
    },
    driverOptions: {
      connection: { statement_timeout: connection.statementTimeoutMs ?? 15000 },
    },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: join(__dirname, '..', '..', 'migrations'),
      pathTs: join(__dirname, '..', '..', 'migrations'),
      glob: isTs ? '!(*.d).ts' : '!(*.d).js',
      transactional: true,
      allOrNothing: true,
      snapshot: true,
      snapshotName: '.snapshot-recall-ledger',
      emit: 'ts',
    },
  });
}
