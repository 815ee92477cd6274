import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

/**
 * Builds the admin console with the same Vite config as `npm run build`, into a folder of this
 * test file's own (test files run in parallel; dist/ may be stale or absent on a fresh clone).
 */
export function buildAdminConsole(): string {
  const outDir = mkdtempSync(join(tmpdir(), 'admin-console-'));
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--config', join(ROOT, 'admin-console', 'vite.config.mts'), '--outDir', outDir], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  return outDir;
}

/** Screenshots and other files a run leaves for people to look at (CI prints their names; not committed). */
export const ARTIFACTS_DIR = join(ROOT, 'test', 'artifacts');

/** Debian's Chromium, or the one CHROMIUM_PATH names. */
export function chromiumPath(): string | null {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  return existsSync(path) ? path : null;
}

/** The flags Chromium needs here: root in a container, no GPU, and no calls home on a closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];
