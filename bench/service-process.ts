// First, as in main.ts: OTEL_* variables trace the service under test as they would a deployment.
import '../src/observability/start-tracing';
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { writeHeapSnapshot } from 'node:v8';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../src/app.module';
import { loadConfig, secretFile } from '../src/config/load-config';
import { APP_OPTIONS, configureApp } from '../src/configure-app';
import { prepareDatabase } from '../src/database/request-role';
import { createRootLogger } from '../src/observability/logger';

/*
 * The service under test, in a process of its own (forked by harness.ts), started the way
 * `npm start` starts it: its CPU is then its own, apart from the load generator's. It talks to
 * the bench over the IPC channel: `ready` with its port once it listens; `profile-start` /
 * `profile-stop` (BENCH_PROFILE=1) run the V8 CPU profiler, the same one `--cpu-prof` runs;
 * `collect-garbage` runs a full collection and answers the memory left (the soak's post-GC heap);
 * `heap-snapshot` writes one (V8 collects garbage first); `loop-hold` answers the longest the event
 * loop was held since the last ask (what a neighbour's request waited behind), and starts again;
 * `close` closes the app and exits.
 */

export type ServiceMessage =
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'collect-garbage' }
  | { type: 'heap-snapshot'; file: string }
  | { type: 'loop-hold' }
  | { type: 'close' };
export type ServiceReply =
  | { type: 'ready'; port: number }
  | { type: 'done'; of: ServiceMessage['type']; memory?: NodeJS.MemoryUsage; holdMs?: number }
  | { type: 'failed'; message: string };

const reply = (message: ServiceReply): void => {
  process.send?.(message);
};

async function main(): Promise<void> {
  // The environment as `npm start` would read it (the harness sets the database, folder, secret
  // and log level), so a run can tune the service like a deployment, e.g. RETENTION_BATCH_PAUSE_MS.
  // The load generator calls 127.0.0.1: the host a production service must be told it answers as.
  const config = loadConfig({ ...process.env, NODE_ENV: 'production', ALLOWED_HOSTS: '127.0.0.1' });
  // As main.ts: migrate as the owner, serve as the request role row-level security applies to.
  const password = config.database.appPassword ?? secretFile(config.dataDir, 'db-app-password');
  const appUrl = await prepareDatabase(config.database.url ?? '', { appUrl: config.database.appUrl, password }, () => undefined);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, appUrl), APP_OPTIONS);
  configureApp(app, config, createRootLogger(config.logLevel));
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;

  const profiler = new Session();
  const heap = new Session();
  // A timer every millisecond: how late it fires is how long the loop was held (to within 1 ms).
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  process.on('message', (message: ServiceMessage) => {
    if (message.type === 'loop-hold') {
      const holdMs = loopDelay.count === 0 ? 0 : loopDelay.max / 1e6;
      loopDelay.reset();
      reply({ type: 'done', of: message.type, holdMs });
      return;
    }
    void handle(message).then(
      (memory) => reply({ type: 'done', of: message.type, memory }),
      (error: unknown) => reply({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  // The bench went away without saying close: do not outlive it.
  process.on('disconnect', () => void app.close().finally(() => process.exit(0)));

  let heapConnected = false;
  async function handle(message: ServiceMessage): Promise<NodeJS.MemoryUsage | undefined> {
    if (message.type === 'collect-garbage') {
      if (!heapConnected) heap.connect();
      heapConnected = true;
      await heap.post('HeapProfiler.collectGarbage');
      return process.memoryUsage();
    } else if (message.type === 'heap-snapshot') {
      writeHeapSnapshot(message.file);
      return process.memoryUsage();
    } else if (message.type === 'profile-start') {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
      await profiler.post('Profiler.start');
    } else if (message.type === 'profile-stop') {
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      writeFileSync(message.file, JSON.stringify(profile));
    } else {
      await app.close();
      setImmediate(() => process.exit(0));
    }
  }
  reply({ type: 'ready', port });
}

main().catch((error: unknown) => {
  reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
