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

  /** Lets `role` log in with `password` (the literal is escaped: ALTER ROLE takes no parameters). */
  async setLoginPassword(role: string, password: string): Promise<void> {
    await this.client.query(`alter role ${this.client.escapeIdentifier(role)} with login password ${this.client.escapeLiteral(password)}`);
  }

  /** What the connected role may do: whether it could get round row-level security, and whether it holds `group`. */
  async readRoleFacts(
    group: string,
  ): Promise<{ role: string; superuser: boolean; bypassRls: boolean; ownsTables: boolean; member: boolean }> {
    const { rows } = await this.client.query<{
      role: string;
      superuser: boolean;
      bypassRls: boolean;
      ownsTables: boolean;
      member: boolean;
    }>(
      `select r.rolname as "role", r.rolsuper as "superuser", r.rolbypassrls as "bypassRls",
              exists (select 1 from pg_tables t where t.schemaname = 'public' and t.tableowner = current_user) as "ownsTables",
              exists (select 1 from pg_roles g where g.rolname = $1) and pg_has_role(current_user, $1, 'usage') as "member"
         from pg_roles r where r.rolname = current_user`,
      [group],
    );
    return rows[0];
  }
}
