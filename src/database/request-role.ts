import { Client } from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { BootstrapRepository } from './bootstrap.repository';
import { ormOptions } from './orm-options';
import { requestRoleRefusal } from './request-role-check';

/** The group role the row-level security policies name (created by a migration). */
export const REQUEST_ROLE = 'recall_ledger_app';

export interface RequestRoleSettings {
  /** DATABASE_APP_URL: a login role an operator provisioned (a member of `recall_ledger_app`, reaching no owner or privileged role). */
  appUrl?: string;
  /** DATABASE_APP_PASSWORD, or the one generated under DATA_DIR, for the role the service provisions. */
  password: string;
}

/**
 * Migrates as the owner (DATABASE_URL), then returns the URL request-time work connects with
 * (R-TN-8): the operator's DATABASE_APP_URL, or the owner's URL with `recall_ledger_app`'s
 * credentials, after giving that role its password (as a SCRAM verifier). Refuses a request role
 * that could get round row-level security (requestRoleRefusal), itself or through any membership.
 */
export async function prepareDatabase(ownerUrl: string, role: RequestRoleSettings, log: (line: string) => void): Promise<string> {
  await migrate(ownerUrl, log);
  if (role.appUrl) {
    await assertRequestRole(role.appUrl);
    return role.appUrl;
  }
  const appUrl = withCredentials(ownerUrl, REQUEST_ROLE, role.password);
  try {
    await assertRequestRole(appUrl);
  } catch (error) {
    // Not yet able to log in with this password (first start, a new password): give it, once.
    // Replicas that already agree leave the role alone (concurrent ALTER ROLEs would collide).
    if (!LOGIN_REFUSED.has((error as { code?: string }).code ?? '')) throw error;
    await withClient(ownerUrl, (client) => new BootstrapRepository(client).setLoginPassword(REQUEST_ROLE, role.password));
    await assertRequestRole(appUrl);
  }
  return appUrl;
}

/** invalid_password, invalid_authorization_specification (e.g. a role that may not log in). */
const LOGIN_REFUSED = new Set(['28P01', '28000']);

/** Applies pending migrations as the owner of the schema. */
async function migrate(ownerUrl: string, log: (line: string) => void): Promise<void> {
  const orm = await MikroORM.init(ormOptions({ url: ownerUrl, log }));
  try {
    const applied = await orm.migrator.up();
    if (applied.length > 0) log(`applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
  } finally {
    await orm.close(true);
  }
}

/** The same server and database, as another role. */
export function withCredentials(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** Reads what the role of `appUrl` can reach and throws the refusal when it could get round row-level security. */
async function assertRequestRole(appUrl: string): Promise<void> {
  const facts = await withClient(appUrl, (client) => new BootstrapRepository(client).readRoleFacts(REQUEST_ROLE));
  const refusal = requestRoleRefusal(facts, REQUEST_ROLE);
  if (refusal) throw new Error(refusal);
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
