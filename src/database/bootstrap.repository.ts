import type { Client } from 'pg';
import type { RoleFacts } from './request-role-check';
import { scramSha256Verifier } from './scram-verifier';

/** A schema of the database's own (alias n): not pg_catalog, pg_toast, a session's pg_temp_N, nor information_schema. */
const USER_SCHEMA = `n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'`;

/** PostgreSQL's predefined roles that read, write or run anything the server's OS user may: superuser-level, by its docs. */
const SERVER_FILE_ROLES = `'pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program'`;

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
   * What the connected role may do (see RoleFacts): its own attributes, whether it owns a table,
   * view, sequence, function or schema outside the system schemas of this database (or the
   * database, which owns schema public), every other role it can reach through any membership
   * that could get round row-level security, and whether it holds `group`.
   *
   * pg_has_role's MEMBER is any membership, direct or through other roles, whatever its INHERIT
   * and SET options (PostgreSQL 16+) — so it covers a role reachable only by SET ROLE, and on 15,
   * where every membership allows SET ROLE, it is exactly what SET ROLE can reach.
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
       ),
       me as (select * from pg_roles where rolname = current_user),
       reachable as (
         select g.oid, g.rolname::text as "name", array_remove(array[
                  case when g.rolsuper then 'SUPERUSER' end,
                  case when g.rolbypassrls then 'BYPASSRLS' end,
                  case when g.rolcreaterole then 'CREATEROLE' end,
                  case when g.rolreplication then 'REPLICATION' end,
                  case when g.rolname in (${SERVER_FILE_ROLES}) then 'server files' end,
                  case when g.oid in (select owner from owners) then 'owner' end
                ], null) as "powers"
           from pg_roles g cross join me
          where g.oid <> me.oid and pg_has_role(me.oid, g.oid, 'MEMBER')
       ),
       dangerous as (select * from reachable where cardinality(powers) > 0)
       select me.rolname as "role", me.rolsuper as "superuser", me.rolbypassrls as "bypassRls",
              me.rolcreaterole as "createRole", me.rolreplication as "replication",
              exists (select 1 from owners o where o.owner = me.oid) as "ownsObjects",
              coalesce((select json_agg(json_build_object('name', x.name, 'powers', x.powers) order by x.name) from dangerous x), '[]')
                as "reachable",
              array(select distinct m.rolname::text from pg_auth_members a join pg_roles m on m.oid = a.roleid
                     where a.member = me.oid
                       and exists (select 1 from dangerous x where x.oid = m.oid or pg_has_role(m.oid, x.oid, 'MEMBER'))
                     order by 1) as "grantedThrough",
              exists (select 1 from pg_roles g where g.rolname = $1) and pg_has_role(current_user, $1, 'usage') as "member"
         from me`,
      [group],
    );
    return rows[0];
  }
}
