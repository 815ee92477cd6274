import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { EmbeddedPostgresOptions } from '../../../../src/database/embedded-postgres';

const ROOT = join(__dirname, '..', '..', '..', '..');

export interface OwnPostgres {
  readonly url: string;
  /** What the child printed to stdout: the `prelude`'s lines too. */
  readonly output: string;
  stop(): Promise<void>;
}

/**
 * startEmbeddedPostgres in a child process: jest's module registry cannot load the server's
 * platform package (ES modules only; the global setup loads it outside the registry). The child
 * runs `prelude` (plain JavaScript) first, prints the URL and stops the server when its stdin
 * closes, so a killed test run stops it too.
 */
const serverProcess = (prelude: string): string => `
${prelude}
const { startEmbeddedPostgres } = require('./src/database/embedded-postgres');
startEmbeddedPostgres(JSON.parse(process.argv[1])).then(
  (server) => {
    process.stdout.write(JSON.stringify({ url: server.url }) + '\\n');
    process.stdin.on('end', () => server.stop().then(() => process.exit(0)));
    process.stdin.resume();
  },
  (error) => {
    process.stderr.write(String((error && error.message) || error) + '\\n');
    process.exit(1);
  },
);`;

export async function startOwnPostgres(options: EmbeddedPostgresOptions, prelude = ''): Promise<OwnPostgres> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', '-e', serverProcess(prelude), JSON.stringify(options)], { cwd: ROOT });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{"url":'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`the test's PostgreSQL did not start (exit ${code}): ${output}${errors}`)));
  });
  return {
    url,
    output,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
