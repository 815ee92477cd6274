/**
 * Issue 53: the embedded PostgreSQL never asks for a password in cleartext, and its one-time
 * initdb password is never readable by another user. The server starts in a child process whose
 * `child_process.spawn` is wrapped: when the package starts initdb, every `--pwfile` it is given is
 * inspected there and then (mode, owner, folder, content) — the moment the file exists for.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionRefusal } from '../../../src/database/embedded-postgres';
import { freePort } from '../../support/free-port';
import { authenticationRequests, hbaRules } from './support/authentication';
import { type OwnPostgres, startOwnPostgres } from './support/own-postgres';

/** What the wrapped spawn saw of one `--pwfile` when the package started initdb. */
interface PasswordFileSeen {
  file: string;
  mode: number;
  uid: number;
  folderMode: number;
  folderUid: number;
  content: string;
}

/** Run in the child before the package loads: records initdb's password files, then starts it as asked. */
const RECORD_INITDB_PASSWORD_FILES = `
const childProcess = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const spawnAsBefore = childProcess.spawn;
childProcess.spawn = function (command, args, options) {
  if (path.basename(String(command)) === 'initdb') {
    const files = (args || []).filter((arg) => arg.startsWith('--pwfile=')).map((arg) => {
      const file = arg.slice('--pwfile='.length);
      const stat = fs.statSync(file);
      const folder = fs.statSync(path.dirname(file));
      const content = fs.readFileSync(file, 'utf8').trim();
      return { file, mode: stat.mode & 0o777, uid: stat.uid, folderMode: folder.mode & 0o777, folderUid: folder.uid, content };
    });
    process.stdout.write(JSON.stringify({ initdb: { uid: options && options.uid, files } }) + '\\n');
  }
  return spawnAsBefore.apply(this, arguments);
};
// The package imports spawn by name from the ES module of child_process: give it the wrapper.
require('node:module').syncBuiltinESMExports();
`;

describe('The embedded PostgreSQL’s authentication (issue 53)', () => {
  let folder: string;
  let server: OwnPostgres | undefined;
  let port: number;
  const password = randomBytes(24).toString('base64url');
  const superuserUrl = (secret: string): string => `postgres://postgres:${encodeURIComponent(secret)}@127.0.0.1:${port}/postgres`;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'rl-embedded-auth-'));
    chmodSync(folder, 0o755); // the postgres system user must reach its data folder
    port = await freePort();
    server = await startOwnPostgres({ dataDir: join(folder, 'pg'), port, password }, RECORD_INITDB_PASSWORD_FILES);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('R-TN-8 initdb reads its one-time password from a file only its own user may read, and no file others may read holds a password', async () => {
    const seen = server?.output
      .split('\n')
      .filter((line) => line.startsWith('{"initdb":'))
      .map((line) => (JSON.parse(line) as { initdb: { uid?: number; files: PasswordFileSeen[] } }).initdb);
    expect(seen).toHaveLength(1);
    const [{ uid, files }] = seen ?? [];
    const initdbUser = uid ?? process.getuid?.();

    // initdb takes the last --pwfile: 0600 in a 0700 folder, both initdb's user's.
    const read = files.at(-1);
    expect(read).toMatchObject({ mode: 0o600, uid: initdbUser, folderMode: 0o700, folderUid: initdbUser });
    // Any other (the package writes its own, mode 0644 in the temp folder) holds a throwaway no role has.
    const readable = files.filter((file) => (file.mode & 0o077) !== 0 || (file.folderMode & 0o077) !== 0);
    for (const file of readable) {
      expect(file.content).not.toBe(read?.content);
      expect(await connectionRefusal(superuserUrl(file.content))).toBe('28P01');
    }
    // Gone once initdb has run, and the one-time password was replaced by the service's.
    expect(files.filter((file) => existsSync(file.file))).toEqual([]);
    expect(await connectionRefusal(superuserUrl(read?.content ?? ''))).toBe('28P01');
    expect(await connectionRefusal(superuserUrl(password))).toBeNull();
  });

  it('R-TN-8 a new cluster asks for scram-sha-256 on every pg_hba.conf line, local sockets and loopback, never a cleartext password', async () => {
    const rules = await hbaRules(superuserUrl(password));
    expect(rules.map((rule) => rule.type)).toEqual(['local', 'host', 'host', 'local', 'host', 'host']);
    expect(new Set(rules.map((rule) => rule.method))).toEqual(new Set(['scram-sha-256']));
    expect(await authenticationRequests(superuserUrl(password))).toEqual(['authenticationSASL']);
  });
});
