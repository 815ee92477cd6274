import { SignJWT } from 'jose';
import type { Scope } from './scopes';

export interface TokenRequest {
  userId: string;
  teamId: string;
  scopes: readonly (Scope | string)[];
  secret: string;
  /** Seconds from now; may be negative to mint an expired token for tests. */
  expiresInSeconds?: number;
  issuer?: string;
  audience?: string;
}

/** Mints an HS256 token with the claims the service expects (`sub`, `tid`, `scope`, `exp`). */
export async function signToken(request: TokenRequest): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ tid: request.teamId, scope: request.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(request.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + (request.expiresInSeconds ?? 3600));
  if (request.issuer) jwt = jwt.setIssuer(request.issuer);
  if (request.audience) jwt = jwt.setAudience(request.audience);
  return jwt.sign(new TextEncoder().encode(request.secret));
}
