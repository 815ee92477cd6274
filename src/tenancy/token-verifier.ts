import { webcrypto } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../config/app-config';
import { UnauthenticatedError } from '../common/errors/app-error';
import { UUID_PATTERN as UUID } from '../common/uuid-pattern';
import { parseScopes, type Scope } from './scopes';

export interface VerifiedClaims {
  userId: string;
  teamId: string;
  scopes: Scope[];
  /** The token's `iat`, in seconds: a token issued before its user's deletion is refused (R-RT-4). */
  issuedAt: number;
}

const ASYMMETRIC = ['RS256', 'ES256'];

/**
 * Verifies bearer tokens (R-TN-1): HS256 with the configured secret, or RS256/ES256 keys
 * from a JWKS URL. `exp` and `iat` are required, and a token is refused AUTH_TOKEN_MAX_AGE_SECONDS
 * after its `iat` (a deleted user's tombstone is kept as long); `iss`/`aud` are checked when configured.
 *
 * A client sends the same token on every request until it expires, and verifying it (base64,
 * JSON, an HMAC or RSA check on the thread pool) was a sixth of the request floor. So the claims
 * of a token that verified are kept by the exact token string, in a bounded least-recently-used
 * cache, each until its `exp`: a kept token is as valid as it was, and one that failed is never
 * kept. What the claims lead to (the user, the team, the allowed spaces) is still read from the
 * database on every request (R-TN-4).
 */
const WALL_CLOCK = { now: () => Date.now() };

const NEEDS_KID = "The bearer token's header needs a kid naming the key that signed it.";

@Injectable()
export class TokenVerifier {
  /** The HS256 key, imported once: jose would import raw secret bytes again on every call. */
  private readonly secret?: Promise<webcrypto.CryptoKey>;
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;
  private readonly verified?: LRUCache<string, VerifiedClaims>;

  constructor(private readonly config: AppConfig) {
    const { jwtSecret, jwksUrl } = config.auth;
    if (jwtSecret) {
      this.secret = webcrypto.subtle.importKey('raw', new TextEncoder().encode(jwtSecret), { name: 'HMAC', hash: 'SHA-256' }, false, [
        'verify',
      ]);
    }
    // A key set is used for its max age; a token naming a kid not in it fetches it again, at most
    // every 30 s (sooner with a shorter max age): a rotated-in key is found, a rotated-out one is gone.
    const cacheMaxAge = config.auth.jwksCacheMaxAgeMs;
    if (jwksUrl) this.jwks = createRemoteJWKSet(new URL(jwksUrl), { cacheMaxAge, cooldownDuration: Math.min(30_000, cacheMaxAge) });
    // lru-cache checks each entry's ttl when it is read (`ttlAutopurge` off: no timer per entry).
    // ttlResolution 0: each read asks the clock. lru-cache otherwise reuses a reading until a 1 ms timer
    // clears it, and a loaded event loop fires that timer late, and a kept token can outlive its exp.
    // perf Date: a kept token's time runs on the wall clock its exp and iat are written in.
    if (config.auth.tokenCacheSize > 0)
      this.verified = new LRUCache({ max: config.auth.tokenCacheSize, ttlAutopurge: false, ttlResolution: 0, perf: WALL_CLOCK });
  }

  verify(token: string): Promise<VerifiedClaims> {
    const kept = this.verified?.get(token);
    return kept ? Promise.resolve(kept) : this.verifyAndKeep(token);
  }

  private async verifyAndKeep(token: string): Promise<VerifiedClaims> {
    const payload = await this.verifySignature(token);
    const { sub, tid, iat } = payload;
    if (typeof sub !== 'string' || !UUID.test(sub)) throw new UnauthenticatedError("The token's sub claim must be a user UUID.");
    if (typeof tid !== 'string' || !UUID.test(tid)) throw new UnauthenticatedError("The token's tid claim must be a team UUID.");
    const claims: VerifiedClaims = Object.freeze({
      userId: sub.toLowerCase(),
      teamId: tid.toLowerCase(),
      scopes: Object.freeze(parseScopes(payload.scope)) as Scope[],
      issuedAt: iat as number,
    });
    // exp and iat are required, so a verified token has both; kept until it expires or grows too old, to the millisecond.
    const until = Math.min(payload.exp as number, (iat as number) + this.config.auth.tokenMaxAgeSeconds);
    const ttl = until * 1000 - Date.now();
    if (this.verified && ttl > 0) this.verified.set(token, claims, { ttl });
    return claims;
  }

  private async verifySignature(token: string): Promise<JWTPayload> {
    const { issuer, audiences, tokenMaxAgeSeconds } = this.config.auth;
    const options = {
      issuer,
      audience: audiences ? [...audiences] : undefined,
      requiredClaims: ['exp', 'iat', 'sub'],
      maxTokenAge: tokenMaxAgeSeconds,
    };
    try {
      const { alg, kid } = decodeProtectedHeader(token);
      if (alg === 'HS256' && this.secret) {
        return (await jwtVerify(token, await this.secret, { ...options, algorithms: ['HS256'] })).payload;
      }
      if (alg && ASYMMETRIC.includes(alg) && this.jwks) {
        // Without a kid the key would be guessed from the set (jose takes a lone key of the alg): named, it is looked up.
        if (typeof kid !== 'string' || kid === '') throw new UnauthenticatedError(NEEDS_KID);
        return (await jwtVerify(token, this.jwks, { ...options, algorithms: ASYMMETRIC })).payload;
      }
    } catch (error) {
      if (error instanceof UnauthenticatedError) throw error;
      if ((error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired) && error.claim === 'iat') {
        throw new UnauthenticatedError(
          `The bearer token needs an iat claim (when it was issued), at most ${tokenMaxAgeSeconds} seconds ago; get a new token.`,
        );
      }
      throw new UnauthenticatedError('The bearer token is invalid or expired.');
    }
    throw new UnauthenticatedError('The bearer token is signed with an algorithm this service does not accept.');
  }
}
