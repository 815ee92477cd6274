/**
 * Issue 37: the request role's password never appears in PostgreSQL's log, even with every
 * statement logged. A PostgreSQL of this test's own (log_statement = 'all', the logging collector
 * writing files into its data folder) goes through the real start-up path: the first start gives
 * `recall_ledger_app` its password, a second start with a new password changes it, and an ALTER ROLE
 * by a role without CREATEROLE fails (PostgreSQL logs a failed statement again, with its error).
 * Every log file is then read whole: no password in it, while the ALTER ROLE statements, with the
 * verifier sent instead, are there (so the test cannot pass by reading an empty log).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { BootstrapRepository } from '../../../src/database/bootstrap.repository';
import { withDatabase } from '../../../src/database/database-url';
import { prepareDatabase, REQUEST_ROLE, withCredentials } from '../../../src/database/request-role';
import { scramSha256Verifier } from '../../../src/database/scram-verifier';
import { freePort } from '../../support/free-port';
import { type OwnPostgres, startOwnPostgres } from './support/own-postgres';

const LOG_FOLDER = 'statement-log';
const DATABASE = 'rl_password_log';

/** Every statement, to files in the data folder (stderr format, one file per start). */
const SETTINGS: Readonly<Record<string, string>> = {
  logging_collector: 'on',
  log_destination: 'stderr',
  log_directory: LOG_FOLDER,
  log_statement: 'all',
  log_min_error_statement: 'error',
};

const newPassword = (): string => randomBytes(24).toString('base64url');

describe('The request role’s password and PostgreSQL’s log (log_statement = all)', () => {
  let folder: string;
  let server: OwnPostgres | undefined;
  // The embedded superuser's too: the server gets it as a verifier once initdb's one-time password is replaced.
  const passwords = { first: newPassword(), second: newPassword(), refused: newPassword(), superuser: newPassword() };
  const startupLog: string[] = [];
  let refusal: unknown;
  let logText = '';

  /** Everything the logging collector wrote so far, every file. */
  const readLog = (): string => {
    const dir = join(folder, 'pg', LOG_FOLDER);
    if (!existsSync(dir)) return '';
    return readdirSync(dir)
      .sort()
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('');
  };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'rl-password-log-'));
    chmodSync(folder, 0o755); // the postgres system user must reach its data folder
    const port = await freePort();
    server = await startOwnPostgres({ dataDir: join(folder, 'pg'), port, password: passwords.superuser, settings: SETTINGS });
    const admin = new Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query(`create database ${DATABASE}`);
      // A login role that may not alter others (its own password sent as a verifier too).
      await admin.query(`create role rl_no_createrole login password '${scramSha256Verifier(passwords.refused)}'`);
    } finally {
      await admin.end();
    }
    const ownerUrl = withDatabase(server.url, DATABASE);

    // First start: migrations create recall_ledger_app, which gets its password; then a new password.
    for (const password of [passwords.first, passwords.second]) {
      const appUrl = await prepareDatabase(ownerUrl, { password }, (line) => startupLog.push(line));
      const app = new Client({ connectionString: appUrl });
      await app.connect();
      try {
        expect((await app.query<{ user: string }>('select current_user as "user"')).rows[0].user).toBe(REQUEST_ROLE);
      } finally {
        await app.end();
      }
    }

    // An ALTER ROLE that fails: PostgreSQL logs the statement again beside its error.
    const weak = new Client({ connectionString: withCredentials(ownerUrl, 'rl_no_createrole', passwords.refused) });
    await weak.connect();
    try {
      refusal = await new BootstrapRepository(weak).setLoginPassword(REQUEST_ROLE, passwords.refused).catch((error: unknown) => error);
    } finally {
      await weak.end();
    }

    // The collector writes behind the server: wait for the failed statement's error to be there.
    const deadline = Date.now() + 15_000;
    while (!(logText = readLog()).includes('permission denied to alter role') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // a pause between reads of the log
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('R-TN-8 the first start gives recall_ledger_app its password and the second changes it; the failing ALTER ROLE is refused', () => {
    expect(startupLog.filter((line) => line.startsWith('applied '))).toHaveLength(1);
    expect(refusal).toMatchObject({ code: '42501' });
  });

  it('R-TN-8 no password appears in any log file, while every ALTER ROLE is logged with its SCRAM-SHA-256 verifier, the failed one with its error', () => {
    for (const [which, password] of Object.entries(passwords)) {
      expect({ which, inLog: logText.includes(password) }).toEqual({ which, inLog: false });
    }

    const alterRole = `alter role "${REQUEST_ROLE}" with login password 'SCRAM-SHA-256$4096:`;
    const lines = logText.split('\n');
    // log_statement's line for each of the three, and the failed one's STATEMENT line under its ERROR.
    expect(lines.filter((line) => line.includes(`statement: ${alterRole}`))).toHaveLength(3);
    expect(lines.filter((line) => line.includes(`STATEMENT:  ${alterRole}`))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('ERROR:  permission denied to alter role'))).toHaveLength(1);
  });
});
