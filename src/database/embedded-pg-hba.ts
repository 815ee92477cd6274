import { chownSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

/** The authentication every line of the embedded server's pg_hba.conf asks for. */
export const EMBEDDED_AUTH_METHOD = 'scram-sha-256';

/** The line types whose fields are `type database user address method`. */
const HOST_LINE = /^host(?:ssl|nossl|gssenc|nogssenc)?$/;

/**
 * `text` (a pg_hba.conf) with each line's `password` method (the password in cleartext on the
 * wire, what data folders of earlier versions were made with) replaced by scram-sha-256, the rest
 * kept as it was; undefined when no line asks for `password`. Every role of such a folder has a
 * SCRAM verifier (PostgreSQL's default password_encryption, and the verifiers the service sends),
 * so each login that worked still does.
 */
export function scramHbaConf(text: string): string | undefined {
  let changed = false;
  const lines = text.split('\n').map((line) => {
    const fields = [...line.replace(/#.*/, '').matchAll(/\S+/g)];
    const method = fields[methodIndex(fields.map((field) => field[0]))];
    if (method?.[0] !== 'password') return line;
    changed = true;
    return `${line.slice(0, method.index)}${EMBEDDED_AUTH_METHOD}${line.slice(method.index + method[0].length)}`;
  });
  return changed ? lines.join('\n') : undefined;
}

/** Where a line's method is: after `local database user`, or after `host… database user address [mask]`. */
function methodIndex(fields: string[]): number {
  if (fields[0] === 'local') return 3;
  if (!HOST_LINE.test(fields[0] ?? '')) return -1;
  // An address without a prefix length (`10.0.0.0 255.0.0.0`) is followed by its mask.
  return isIP(fields[3] ?? '') === 0 ? 4 : 5;
}

/**
 * Moves the stopped cluster in `dataDir` to scram-sha-256 where its pg_hba.conf still asks for a
 * cleartext password; it takes effect at the start that follows. The file is replaced whole, with
 * its owner and mode (the `postgres` system user's, when running as root), so a crash leaves the
 * old one or the new one.
 */
export function useScramAuthentication(dataDir: string): void {
  const file = join(dataDir, 'pg_hba.conf');
  const rewritten = scramHbaConf(readFileSync(file, 'utf8'));
  if (rewritten === undefined) return;
  const { mode, uid, gid } = statSync(file);
  const next = `${file}.next`;
  writeFileSync(next, rewritten, { mode: mode & 0o777 });
  if (process.getuid?.() === 0) chownSync(next, uid, gid);
  renameSync(next, file);
}
