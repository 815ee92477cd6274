import { webcrypto } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { AppConfig } from '../config/app-config';
import { UnauthenticatedError } from '../common/errors/app-error';
import { UUID_PATTERN as UUID } from '../common/uuid-pattern';
import { parseScopes, type Scope } from './scopes';

export interface VerifiedClaims {
  userId: string;
  teamId: string;
  scopes: Scope[];
}

const ASYMMETRIC = ['RS256', 'ES256'];

/**
 * Verifies bearer tokens (SPEC R-TN-1): HS256 with the configured secret, or RS256/ES256 keys
 * from a JWKS URL. `exp` is required; `iss`/`aud` are checked when configured.
 */
@Injectable()
export class TokenVerifier {
  /** The HS256 key, imported once: jose would import raw secret bytes again on every call. */
  private readonly secret?: Promise<webcrypto.CryptoKey>;
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly config: AppConfig) {
    const { jwtSecret, jwksUrl } = config.auth;
    if (jwtSecret) {
      this.secret = webcrypto.subtle.importKey('raw', new TextEncoder().encode(jwtSecret), { name: 'HMAC', hash: 'SHA-256' }, false, [
        'verify',
      ]);
    }
    if (jwksUrl) this.jwks = createRemoteJWKSet(new URL(jwksUrl));
  }

  async verify(token: string): Promise<VerifiedClaims> {
    const payload = await this.verifySignature(token);
    const { sub, tid } = payload;
    if (typeof sub !== 'string' || !UUID.test(sub)) throw new UnauthenticatedError("The token's sub claim must be a user UUID.");
    if (typeof tid !== 'string' || !UUID.test(tid)) throw new UnauthenticatedError("The token's tid claim must be a team UUID.");
    return { userId: sub.toLowerCase(), teamId: tid.toLowerCase(), scopes: parseScopes(payload.scope) };
  }

  private async verifySignature(token: string): Promise<JWTPayload> {
    const { issuer, audiences } = this.config.auth;
    const options = { issuer, audience: audiences ? [...audiences] : undefined, requiredClaims: ['exp', 'sub'] };
    try {
      const { alg } = decodeProtectedHeader(token);
      if (alg === 'HS256' && this.secret) {
        return (await jwtVerify(token, await this.secret, { ...options, algorithms: ['HS256'] })).payload;
      }
      if (alg && ASYMMETRIC.includes(alg) && this.jwks) {
        return (await jwtVerify(token, this.jwks, { ...options, algorithms: ASYMMETRIC })).payload;
      }
    } catch {
      throw new UnauthenticatedError('The bearer token is invalid or expired.');
    }
    throw new UnauthenticatedError('The bearer token is signed with an algorithm this service does not accept.');
  }
}
