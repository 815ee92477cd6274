import { escapeIdentifier } from 'pg';

/**
 * What lets a role get round row-level security: SUPERUSER; BYPASSRLS; CREATEROLE (before
 * PostgreSQL 16 it grants itself any non-superuser role); REPLICATION (a base backup or logical
 * decoding reads every row); the predefined roles that read, write or run the server's files
 * (superuser-level, by PostgreSQL's docs); and owning tables or functions here (row-level security
 * policies do not bind the owner: it sees every row, and an owner may turn security off).
 */
type RolePower = 'SUPERUSER' | 'BYPASSRLS' | 'CREATEROLE' | 'REPLICATION' | 'server files' | 'owner';

/** Another role the request role can become or act as, and what that role can do. */
interface ReachableRole {
  name: string;
  powers: RolePower[];
}

/** What the request role is and what it can reach (BootstrapRepository.readRoleFacts). */
export interface RoleFacts {
  role: string;
  superuser: boolean;
  bypassRls: boolean;
  createRole: boolean;
  replication: boolean;
  /** Owns a table, view, sequence, function or schema of this database, or the database. */
  ownsObjects: boolean;
  /** The other roles with a power it reaches through any membership: directly, through other roles, or only by SET ROLE. */
  reachable: ReachableRole[];
  /** The roles granted to it directly through which it reaches them: the grants to revoke. */
  grantedThrough: string[];
  /** Holds the group role the row-level security policies name. */
  member: boolean;
}

const ATTRIBUTES = [
  ['superuser', 'SUPERUSER'],
  ['bypassRls', 'BYPASSRLS'],
  ['createRole', 'CREATEROLE'],
  ['replication', 'REPLICATION'],
] as const;

const POWER_LABELS: Record<RolePower, string> = {
  SUPERUSER: 'SUPERUSER',
  BYPASSRLS: 'BYPASSRLS',
  CREATEROLE: 'CREATEROLE',
  REPLICATION: 'REPLICATION',
  'server files': "reads the server's files",
  owner: 'an owner here',
};

/**
 * Why `facts.role` may not be the request role, in one line that names each role found and the
 * statements that fix it; undefined when it may. A superuser is a member of every role, so its
 * own problem says enough: the roles it reaches are left out.
 */
export function requestRoleRefusal(facts: RoleFacts, group: string): string | undefined {
  const role = escapeIdentifier(facts.role);
  const attributes = ATTRIBUTES.filter(([fact]) => facts[fact]).map(([, keyword]) => keyword);
  const reachable = facts.superuser ? [] : facts.reachable;
  const problems: string[] = [];
  const fixes: string[] = [];
  if (attributes.length > 0) {
    problems.push(`has ${and(attributes)}`);
    // eslint-disable-next-line house/no-sql-outside-repositories -- the operator's next step, shown, never run
    fixes.push(`ALTER ROLE ${role} ${attributes.map((keyword) => `NO${keyword}`).join(' ')}`);
  }
  if (facts.ownsObjects) {
    problems.push('owns tables, functions or schemas here');
    fixes.push(`REASSIGN OWNED BY ${role} TO <the role of DATABASE_URL>`);
  }
  if (reachable.length > 0) {
    const found = reachable.map((reached) => `${escapeIdentifier(reached.name)} (${and(shownPowers(reached.powers))})`);
    const through = facts.grantedThrough.map(escapeIdentifier);
    problems.push(
      `can reach ${and(found)} through membership (directly, through another role or by SET ROLE)` +
        (through.length > 0 ? ` by its grant of ${and(through)}` : ''),
    );
    if (through.length > 0) fixes.push(`REVOKE ${through.join(', ')} FROM ${role}`);
  }
  if (!facts.member) {
    problems.push(`is not a member of ${group}`);
    fixes.push(`GRANT ${group} TO ${role}`);
  }
  if (problems.length === 0) return undefined;
  return (
    `The request-time database role ${role} ${problems.join(', ')}; row-level security needs a login role that owns nothing here, ` +
    'has none of SUPERUSER, BYPASSRLS, CREATEROLE and REPLICATION, reaches no role that has one, owns something here or reads ' +
    `the server's files through any membership, and is granted ${group}: ${fixes.join('; ')} (see docs/configuration.md: DATABASE_APP_URL).`
  );
}

/** A superuser can do everything else: its other attributes say nothing more. */
function shownPowers(powers: RolePower[]): string[] {
  const shown = powers.includes('SUPERUSER') ? powers.filter((power) => power === 'SUPERUSER' || power === 'owner') : powers;
  return shown.map((power) => POWER_LABELS[power]);
}

/** `a`, `a and b`, `a, b and c`. */
function and(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
