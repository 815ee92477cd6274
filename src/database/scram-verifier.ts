import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import saslprep from '@mongodb-js/saslprep';

/** PostgreSQL's own defaults (scram_iterations, SCRAM_DEFAULT_SALT_LEN). */
const ITERATIONS = 4096;
const SALT_BYTES = 16;

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802, RFC 7677; the form of
 * `pg_authid.rolpassword`): `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`.
 * `ALTER ROLE … PASSWORD '<verifier>'` stores it as given, so the password itself never reaches
 * the server, nor its log when a statement fails. The password is SASLprep'd first, as the server
 * does with a plaintext one and as the pg client does when it logs in.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(SALT_BYTES), iterations = ITERATIONS): string {
  const salted = pbkdf2Sync(saslprep(password), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
