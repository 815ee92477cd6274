import { Migration } from '@mikro-orm/migrations';

const APP_ROLE = 'recall_ledger_app';

/**
 * The request role gets what a migration grants it by name, nothing else (issue 37):
 * - no CREATE on schema public, neither its own nor through PUBLIC (PostgreSQL 15 stopped granting
 *   it to PUBLIC on new databases; one created before, or restored from such a dump, still has it).
 *   A role that may create in the search path could plant a table or function there for a
 *   maintenance function or the owner to pick up;
 * - no default privileges: Migration20261201181000 made every future table of the owner readable and
 *   writable by the request role, row-level security or not. A migration that adds a table now
 *   grants it, beside its policy (the catalog test, test/migrations/catalog-privileges.spec.ts,
 *   fails on a table the request role can reach without row-level security). No default privilege
 *   on sequences or functions was ever granted to it.
 */
export class Migration20261202120000_request_role_privileges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`revoke create on schema public from public, ${APP_ROLE};`);
    this.addSql(`alter default privileges in schema public revoke select, insert, update, delete on tables from ${APP_ROLE};`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter default privileges in schema public grant select, insert, update, delete on tables to ${APP_ROLE};`);
    // PUBLIC had CREATE on public by default before PostgreSQL 15 only; the request role never had it by name.
    this.addSql(`do $do$ begin
  if current_setting('server_version_num')::int < 150000 then
    grant create on schema public to public;
  end if;
end $do$;`);
  }
}
