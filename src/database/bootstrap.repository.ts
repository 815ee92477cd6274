import type { Client } from 'pg';

/**
 * The statements the bootstrap runs on a plain pg client before MikroORM starts: the app's
 * database may not exist yet, and its encoding decides whether the ORM may start at all.
 */
export class BootstrapRepository {
  constructor(private readonly client: Client) {}

  async databaseExists(name: string): Promise<boolean> {
    const found = await this.client.query('select 1 from pg_database where datname = $1', [name]);
    return (found.rowCount ?? 0) > 0;
  }

  /** `name` is the service's own constant, never input: it is written into the statement. */
  async createDatabase(name: string): Promise<void> {
    await this.client.query(`create database ${name}`);
  }

  /** The connected database's name, server encoding and this connection's client encoding. */
  async readEncodings(): Promise<{ database: string; serverEncoding: string; clientEncoding: string }> {
    const { rows } = await this.client.query<{ database: string; serverEncoding: string; clientEncoding: string }>(
      `select current_database() as "database",
              current_setting('server_encoding') as "serverEncoding",
              current_setting('client_encoding') as "clientEncoding"`,
    );
    return rows[0];
  }
}
