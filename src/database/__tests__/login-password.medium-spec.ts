import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { BootstrapRepository } from '../bootstrap.repository';
import { withCredentials } from '../request-role';
import { scramSha256Verifier } from '../scram-verifier';
import { SERVER_URL_ENV, withAdminClient } from '../../../test/support/test-database';

/**
 * The request role's password is sent as a SCRAM-SHA-256 verifier computed in the service, never as
 * plaintext SQL (issue 37). Checked against the server itself: it must store and accept what we send.
 * Throwaway roles only: recall_ledger_app's password is the whole run's (every test file logs in with it).
 */

/** `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, as pg_authid.rolpassword holds it. */
function parseVerifier(stored: string): { iterations: number; salt: Buffer } {
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$[^:]+:.+$/.exec(stored);
  if (!match) throw new Error(`not a SCRAM-SHA-256 verifier: ${stored.slice(0, 14)}…`);
  return { iterations: Number(match[1]), salt: Buffer.from(match[2], 'base64') };
}

const throwawayRole = (): string => `rl_t_login_${randomBytes(5).toString('hex')}`;

async function storedPassword(admin: Client, role: string): Promise<string> {
  const { rows } = await admin.query<{ rolpassword: string }>('select rolpassword from pg_authid where rolname = $1', [role]);
  return rows[0].rolpassword;
}

describe('The request role’s password as a SCRAM verifier (real PostgreSQL)', () => {
  it('R-TN-8 the verifier computed in the service is the one PostgreSQL computes for the same password, salt and iterations', async () => {
    const passwords = [
      randomBytes(24).toString('base64url'), // the form DATA_DIR's generated password takes
      'correct horse battery staple',
      // SASLprep on both sides: a no-break space maps to a space, NFKC folds the ligature and the numeral.
      'p\u00e4ssw\u00f6rd\u00a0mit \ufb01 und \u2168',
    ];
    await withAdminClient(async (admin) => {
      for (const password of passwords) {
        const role = throwawayRole();
        await admin.query('begin');
        try {
          await admin.query(`set local password_encryption = 'scram-sha-256'`);
          await admin.query(`create role ${role} password ${admin.escapeLiteral(password)}`);
          const stored = await storedPassword(admin, role);
          const { salt, iterations } = parseVerifier(stored);
          expect({ password, verifier: scramSha256Verifier(password, salt, iterations) }).toEqual({ password, verifier: stored });
        } finally {
          await admin.query('rollback');
        }
      }
    });
  });

  it('R-TN-8 setLoginPassword sends the verifier, not the password; the server stores it as sent, and the role logs in with the password (not with another)', async () => {
    const role = throwawayRole();
    const password = `${randomBytes(18).toString('base64url')} \u00e4\u00a0x`;
    const serverUrl = process.env[SERVER_URL_ENV] ?? '';
    await withAdminClient(async (admin) => {
      await admin.query(`create role ${role} nologin`);
      try {
        const query = jest.spyOn(admin, 'query'); // calls through, and keeps what was sent
        let sent: unknown[];
        try {
          await new BootstrapRepository(admin).setLoginPassword(role, password);
        } finally {
          sent = query.mock.calls.map((call) => call[0]);
          query.mockRestore();
        }
        const stored = await storedPassword(admin, role);
        expect(sent).toEqual([`alter role "${role}" with login password '${stored}'`]);
        const { salt, iterations } = parseVerifier(stored);
        expect(iterations).toBe(4096);
        expect(scramSha256Verifier(password, salt, iterations)).toBe(stored);

        const login = new Client({ connectionString: withCredentials(serverUrl, role, password) });
        await login.connect();
        try {
          expect((await login.query<{ user: string }>('select current_user as "user"')).rows[0].user).toBe(role);
        } finally {
          await login.end();
        }
        const wrong = new Client({ connectionString: withCredentials(serverUrl, role, `${password}x`) });
        await expect(wrong.connect()).rejects.toMatchObject({ code: '28P01' });
      } finally {
        await admin.query(`drop role if exists ${role}`);
      }
    });
  });
});
