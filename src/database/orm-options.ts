import { join } from 'node:path';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options, UnderscoreNamingStrategy } from '@mikro-orm/postgresql';

// MikroORM's own TypeScript detection misses @swc/jest; decide from our own file name.
const isTs = __filename.endsWith('.ts');

/**
 * `npm run migration:create -- --name add-foo` writes Migration<timestamp>_add_foo.ts with a class of
 * the same name: MikroORM would put the name in as given, and `add-foo` is no class name. Without a
 * name it is Migration<timestamp>, as every migration so far (their recorded names stay as they are).
 */
function migrationName(timestamp: string, name?: string): string {
  return name ? `Migration${timestamp}_${name.replace(/\W+/g, '_')}` : `Migration${timestamp}`;
}

/** MikroORM's default for PostgreSQL, with the migration class named as its file. */
class NamingStrategy extends UnderscoreNamingStrategy {
  override classToMigrationName(timestamp: string, name?: string): string {
    return migrationName(timestamp, name);
  }
}

export interface OrmConnectionOptions {
  url: string;
  /**
   * The entities to map. The app leaves this empty and each feature module registers its own
   * (`MikroOrmModule.forFeature`); the CLI and the tests pass the app's whole list.
   */
  entities?: NonNullable<Options['entities']>;
  poolMax?: number;
  acquireTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** The client's own wait for a statement's answer; unset: the statement timeout + 1000 (see connection-deadlines.ts). */
  queryTimeoutMs?: number;
  connectTimeoutMs?: number;
  keepAliveIdleMs?: number;
  /** Where MikroORM's and knex's own messages (the migrator's, a dropped connection) go; silent by default. */
  log?: (message: string) => void;
}

export function ormOptions(connection: OrmConnectionOptions): Options {
  const statementTimeoutMs = connection.statementTimeoutMs ?? 15000;
  const log = connection.log ?? (() => undefined);
  return defineConfig({
    clientUrl: connection.url,
    entities: connection.entities ?? [],
    namingStrategy: NamingStrategy,
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    forceUtcTimezone: true,
    colors: false,
    logger: log,
    allowGlobalContext: false,
    preferTs: isTs,
    pool: {
      min: 0,
      max: connection.poolMax ?? 20,
      acquireTimeoutMillis: connection.acquireTimeoutMs ?? 5000,
    },
    driverOptions: {
      connection: {
        statement_timeout: statementTimeoutMs,
        // PostgreSQL's timer cannot fire when the network between is silent: the client keeps its
        // own, a little later, and a connection whose statement passed it is closed (connection-deadlines.ts).
        query_timeout: connection.queryTimeoutMs ?? statementTimeoutMs + 1000,
        connectionTimeoutMillis: connection.connectTimeoutMs ?? 5000,
        // An idle pooled connection whose peer vanished errors in the pool instead of at its next statement.
        keepAlive: true,
        keepAliveInitialDelayMillis: connection.keepAliveIdleMs ?? 10_000,
      },
      // knex's own notes (a connection the pool dropped) go where MikroORM's go, not to the console.
      log: { warn: log, error: log, deprecate: log, debug: log },
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
      fileName: migrationName,
    },
  });
}
