import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningPostgres } from '../../src/database/embedded-postgres';

// Shared between global setup and teardown, which run in the same process.
let running: { server: RunningPostgres; folder: string } | undefined;

export function registerServer(server: RunningPostgres, folder: string): void {
  running = { server, folder };
  // A run that ends with process.exit skips globalTeardown: stop PostgreSQL synchronously.
  process.once('exit', () => {
    if (!running) return;
    const pidFile = join(running.folder, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT');
      } catch {
        // already gone
      }
    }
    rmSync(running.folder, { recursive: true, force: true });
  });
}

/** Stops the embedded server, runs `beforeRemoving` (which reads what it left, e.g. its log), and removes its folder. */
export async function stopServer(beforeRemoving?: () => Promise<void>): Promise<void> {
  if (!running) return beforeRemoving?.();
  const { server, folder } = running;
  running = undefined;
  try {
    await server.stop();
    await beforeRemoving?.();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
