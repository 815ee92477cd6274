import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import type { AppConfig } from '../config/app-config';
import { MigrationRunner } from './migration-runner';
import { ormOptions } from './orm-options';

/**
 * MikroORM on the database the bootstrap chose (embedded or DATABASE_URL), migrated at start.
 * It names no entity: each feature module registers its own with `MikroOrmModule.forFeature`.
 */
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    const { poolMax, acquireTimeoutMs, statementTimeoutMs } = config.database;
    const logger = new Logger('MikroORM');
    return {
      module: DatabaseModule,
      imports: [
        MikroOrmModule.forRoot({
          ...ormOptions({ url: databaseUrl, poolMax, acquireTimeoutMs, statementTimeoutMs, log: (message) => logger.log(message) }),
          registerRequestContext: true,
          autoLoadEntities: true,
        }),
      ],
      providers: [MigrationRunner],
    };
  }
}
