import { type DynamicModule, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import type { AppConfig } from '../config/app-config';
import { MigrationRunner } from './migration-runner';
import { ormOptions } from './orm-options';

/** MikroORM on the database the bootstrap chose (embedded or DATABASE_URL), migrated at start. */
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    const { poolMax, acquireTimeoutMs, statementTimeoutMs } = config.database;
    return {
      module: DatabaseModule,
      imports: [
        MikroOrmModule.forRoot({
          ...ormOptions({ url: databaseUrl, poolMax, acquireTimeoutMs, statementTimeoutMs }),
          registerRequestContext: true,
        }),
      ],
      providers: [MigrationRunner],
    };
  }
}
