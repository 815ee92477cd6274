import './observability/start-tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { ConfigError, loadConfig, secretFile } from './config/load-config';
import { APP_OPTIONS, configureApp } from './configure-app';
import { openDatabase } from './database/open-database';
import { prepareDatabase } from './database/request-role';
import { createRootLogger } from './observability/logger';
import { stopTracing } from './observability/tracing';
import { answerShutdownSignals } from './shutdown-signals';

/** At shutdown, how long buffered spans may take to reach the collector. */
const TRACES_FLUSH_MS = 2000;

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = createRootLogger(config.logLevel);
  let database;
  let appUrl: string;
  try {
    // Read before the database starts, so a refused secret file stops the process at once.
    const password = config.database.appPassword ?? secretFile(config.dataDir, 'db-app-password');
    database = await openDatabase(config, (line) => logger.info(line));
    // Migrations run as the owner; requests as a role row-level security applies to (R-TN-8).
    appUrl = await prepareDatabase(database.url, { appUrl: config.database.appUrl, password }, (line) => logger.info(line));
  } catch (error) {
    logger.fatal(error instanceof Error ? error.message : String(error));
    logger.flush();
    await database?.close();
    process.exit(1);
  }

  let app: NestExpressApplication;
  try {
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, appUrl), APP_OPTIONS);
    configureApp(app, config, logger);
    await app.listen(config.port);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    await database.close();
    process.exit(1);
  }
  logger.info(`recall-ledger serving GraphQL at http://localhost:${config.port}/graphql (Node.js ${process.version})`);
  if (config.adminConsole.enabled) logger.info(`admin console at http://localhost:${config.port}/admin/`);
  for (const line of config.deprecations) logger.warn(line);
  if (config.isProduction && config.metrics.token === undefined) {
    logger.warn('METRICS_TOKEN is unset: /metrics (tool names, process state) is open to anyone who reaches the port');
  }

  // R-OP-2: stop accepting, finish in-flight requests (a running sweep stops after its batch and
  // releases its lease), close the pool, then the embedded database — within the grace period.
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received, shutting down`);
    let graceful = false;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
    try {
      graceful = await Promise.race([app.close().then(() => true), grace.then(() => false)]);
      if (!graceful) logger.error(`in-flight work outlived SHUTDOWN_GRACE_MS (${config.shutdownGraceMs} ms); exiting anyway`);
    } finally {
      await database.close();
      await stopTracing(TRACES_FLUSH_MS);
      logger.flush();
      process.exit(graceful ? 0 : 1);
    }
  };
  answerShutdownSignals((signal) => void shutdown(signal));
}

void bootstrap();
