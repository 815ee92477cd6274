/** The scopes a token may carry (R-TN-2). Unknown scope strings in a token are ignored. */
export enum Scope {
  MEMORY_READ = 'memory:read',
  MEMORY_WRITE = 'memory:write',
  FEEDBACK_WRITE = 'feedback:write',
  ADMIN = 'admin',
}

const KNOWN = new Set<string>(Object.values(Scope));

export function parseScopes(claim: unknown): Scope[] {
  if (typeof claim !== 'string') return [];
  const scopes = claim.split(/\s+/).filter((s): s is Scope => KNOWN.has(s));
  return [...new Set(scopes)].sort();
}
