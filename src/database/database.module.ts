import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../config/app-config';
import { keepConnectionDeadlines } from './connection-deadlines';
import { ormOptions } from './orm-options';
import { type ConnectionSource, shareConnectionsByTeam } from './team-connection-share';

/** The per-team share of the pool (R-TN-10): a provider, so it is put in place when the ORM is. */
const TEAM_CONNECTION_SHARE = Symbol('TEAM_CONNECTION_SHARE');
/** The deadlines the service keeps on its connections itself (R-OP-6), put in place after the share. */
const CONNECTION_DEADLINES = Symbol('CONNECTION_DEADLINES');

/**
 * MikroORM on the database the bootstrap chose and migrated (`prepareDatabase`), connected as the
 * request-time role that row-level security applies to (R-TN-8). It names no entity: each feature module registers its own with `MikroOrmModule.forFeature`.
 */
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    const { poolMax, acquireTimeoutMs, statementTimeoutMs, queryTimeoutMs, connectTimeoutMs, keepAliveIdleMs, maxConnectionsPerTeam } =
      config.database;
    const logger = new Logger('MikroORM');
    return {
      module: DatabaseModule,
      imports: [
        MikroOrmModule.forRoot({
          ...ormOptions({
            url: databaseUrl,
            poolMax,
            acquireTimeoutMs,
            statementTimeoutMs,
            queryTimeoutMs,
            connectTimeoutMs,
            keepAliveIdleMs,
            log: (message) => logger.log(message),
          }),
          // No EntityManager fork per request: every statement goes through runSql on the pool's
          // connection (or a transaction's, which em.transactional tracks itself), and nothing is
          // kept in an identity map, so the fork and its middleware were pure cost (issue 25).
          registerRequestContext: false,
          autoLoadEntities: true,
        }),
      ],
      providers: [
        {
          // One team's burst may hold at most its share of the pool; the rest stays for the other teams.
          provide: TEAM_CONNECTION_SHARE,
          inject: [MikroORM],
          useFactory: (orm: MikroORM) =>
            shareConnectionsByTeam(orm.em.getConnection().getKnex().client as ConnectionSource, {
              perTeam: maxConnectionsPerTeam,
              acquireTimeoutMs,
            }),
        },
        {
          // Around the share: a request's database time bounds its wait for the share too, and a connection
          // whose statement went unanswered is closed before the share counts it free.
          provide: CONNECTION_DEADLINES,
          inject: [MikroORM, TEAM_CONNECTION_SHARE],
          useFactory: (orm: MikroORM) =>
            keepConnectionDeadlines(orm.em.getConnection().getKnex().client as ConnectionSource, {
              acquireTimeoutMs,
              timePerRequestMs: config.database.timePerRequestMs,
            }),
        },
      ],
    };
  }
}
