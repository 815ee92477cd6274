import { Client } from 'pg';

/** The authentication requests a server sends a client logging in at `url`. */
export async function authenticationRequests(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  const requests: string[] = [];
  for (const request of ['authenticationCleartextPassword', 'authenticationMD5Password', 'authenticationSASL']) {
    client.connection.on(request, () => requests.push(request));
  }
  await client.connect();
  await client.end();
  return requests;
}

/** Each line of the server's pg_hba.conf as it reads the file now (a superuser's `url`). */
export async function hbaRules(url: string): Promise<{ type: string; method: string }[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (
      await client.query<{ type: string; method: string }>('select type, auth_method as method from pg_hba_file_rules order by rule_number')
    ).rows;
  } finally {
    await client.end();
  }
}
