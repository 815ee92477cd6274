import { Client } from 'pg';
import { BootstrapRepository } from './bootstrap.repository';

export interface DatabaseEncoding {
  readonly database: string;
  readonly serverEncoding: string;
  readonly clientEncoding: string;
}

/** Where the database came from, so the refusal can say what to do about it. */
export type DatabaseOrigin = { readonly embeddedDir: string } | { readonly external: true };

/**
 * Why recall-ledger cannot run on this database, or undefined when it can. Anything but UTF8
 * makes PostgreSQL count bytes instead of characters (char ranges, maxChars) or, for SQL_ASCII,
 * store whatever bytes it is given unchecked: wrong answers, never an error.
 */
export function encodingProblem(found: DatabaseEncoding, origin: DatabaseOrigin): string | undefined {
  if (found.serverEncoding !== 'UTF8') {
    const what = `database "${found.database}" uses encoding ${found.serverEncoding}, but recall-ledger needs UTF8`;
    if ('embeddedDir' in origin) {
      return (
        `${what}: the embedded data folder ${origin.embeddedDir} was created by an earlier version without UTF-8. ` +
        `Stop the service, keep a dump (pg_dump) if you need its data, remove ${origin.embeddedDir} and start again: it is recreated as UTF8.`
      );
    }
    return (
      // eslint-disable-next-line house/no-sql-outside-repositories -- the operator's next step, shown, never run
      `${what}: point DATABASE_URL at a UTF8 database, ` +
      `e.g. CREATE DATABASE ${found.database}_utf8 ENCODING 'UTF8' LOCALE 'C.UTF-8' TEMPLATE template0.`
    );
  }
  if (found.clientEncoding !== 'UTF8') {
    return (
      `database "${found.database}" gives this connection client_encoding ${found.clientEncoding}, but recall-ledger needs UTF8: ` +
      `remove the client_encoding setting of that database or role (ALTER DATABASE/ROLE … RESET client_encoding) or of the pooler in between.`
    );
  }
  return undefined;
}

/** Reads the database's encodings over one connection and throws the refusal when they are not UTF8. */
export async function assertUtf8Database(url: string, origin: DatabaseOrigin): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const problem = encodingProblem(await new BootstrapRepository(client).readEncodings(), origin);
    if (problem) throw new Error(problem);
  } finally {
    await client.end();
  }
}
