import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

const ROOT = join(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The process's exit code once it exits. */
  exited: Promise<number | null>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** `signal` (SIGTERM) unless it has exited, then waits for the exit; removes the data folder. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The real entry point (src/main.ts) as `npm start` runs it, in a child process on a free port,
 * with its own data folder, on `databaseUrl`; resolves once it serves. Tests that must see what
 * the process itself does (its log lines, the instrumentation Node loads) use it: jest's module
 * loader is not Node's.
 */
export async function startServiceProcess(databaseUrl: string, env: Record<string, string>): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rl-process-'));
  const port = await freePort();
  const { DATABASE_URL: _a, TEST_DATABASE_URL: _b, ...inherited } = process.env;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...inherited,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      FEATURE_FLAG_CACHE_TTL_MS: '0',
      RETENTION_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 45000;
  while (!output.includes('serving GraphQL')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`the service did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100)); // a pause between reads of the output, which says when it serves
  }
  return { child, port, base: `http://127.0.0.1:${port}`, exited, output: () => output, stop };
}
