import type { Client } from 'pg';
import { scramSha256Verifier } from './scram-verifier';

/** A schema of the database's own (alias n): not pg_catalog, pg_toast, a session's pg_temp_N, nor information_schema. */
const USER_SCHEMA = `n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'`;

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

  /**
   * Lets `role` log in with `password`, sent as its SCRAM-SHA-256 verifier (computed here): the
   * password itself never reaches the server, so no statement log, failed or not, can hold it.
   */
  async setLoginPassword(role: string, password: string): Promise<void> {
    const verifier = scramSha256Verifier(password);
    await this.client.query(`alter role ${this.client.escapeIdentifier(role)} with login password ${this.client.escapeLiteral(verifier)}`);
  }

  /**
   * What the connected role may do: whether it could get round row-level security, and whether it
   * holds `group`. `ownerRoles` are the other roles it is a member of (directly, through another
   * role, or only able to SET ROLE to them: pg_has_role's MEMBER) that own a table, view, sequence,
   * function or schema outside the system schemas of this database; `ownsObjects`, whether it owns
   * one itself (or the database, which owns schema public).
   */
  async readRoleFacts(group: string): Promise<RoleFacts> {
    const { rows } = await this.client.query<RoleFacts>(
      `with owned as (
         select c.relowner as owner from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and ${USER_SCHEMA}
         union
         select p.proowner from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${USER_SCHEMA}
         union
         select n.nspowner from pg_namespace n where ${USER_SCHEMA}
       ),
       -- pg_database_owner (schema public's owner since PostgreSQL 15) is the database's owner: named so.
       owners as (
         select distinct case when pg_get_userbyid(o.owner) = 'pg_database_owner' then d.datdba else o.owner end as owner
           from owned o join pg_database d on d.datname = current_database()
       )
       select r.rolname as "role", r.rolsuper as "superuser", r.rolbypassrls as "bypassRls",
              exists (select 1 from owners o where o.owner = r.oid) as "ownsObjects",
              array(select g.rolname::text from owners o join pg_roles g on g.oid = o.owner
                     where o.owner <> r.oid and pg_has_role(r.oid, o.owner, 'MEMBER') order by g.rolname) as "ownerRoles",
              exists (select 1 from pg_roles g where g.rolname = $1) and pg_has_role(current_user, $1, 'usage') as "member"
         from pg_roles r where r.rolname = current_user`,
      [group],
    );
    return rows[0];
  }
}

export interface RoleFacts {
  role: string;
  superuser: boolean;
  bypassRls: boolean;
  ownsObjects: boolean;
  ownerRoles: string[];
  member: boolean;
}
