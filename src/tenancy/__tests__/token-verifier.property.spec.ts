/**
 * Property tests (fast-check) of bearer-token verification (R-TN-1, R-OP-4): a token is client
 * text. Any string, and any mangling of a valid token, is refused with the coded
 * UnauthenticatedError and nothing else; a mangled token is never accepted as someone else.
 */
import { SignJWT } from 'jose';
import fc from 'fast-check';
import { UnauthenticatedError } from '../../common/errors/app-error';
import { loadConfig } from '../../config/load-config';
import { signToken } from '../token-signer';
import { TokenVerifier } from '../token-verifier';

const SECRET = 's'.repeat(48);
const USER = '5f0c7a2e-1b3d-4c5e-8f9a-0b1c2d3e4f50';
const TEAM = '6a1d8b3f-2c4e-4d6f-9a0b-1c2d3e4f5061';
const CLAIMS = { userId: USER, teamId: TEAM, scopes: ['memory:read'] };
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const verifier = new TokenVerifier(loadConfig({ NODE_ENV: 'test', AUTH_JWT_SECRET: SECRET }));

/** Resolves to the claims, or to the error it was refused with. */
async function outcome(token: string): Promise<unknown> {
  try {
    return await verifier.verify(token);
  } catch (error) {
    return error;
  }
}

function expectRefused(result: unknown): void {
  expect(result).toBeInstanceOf(UnauthenticatedError);
  expect(result).toMatchObject({ code: 'UNAUTHENTICATED' });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const segment = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom(...B64URL) }),
  fc.jsonValue().map(b64),
  fc.constantFrom(b64({ alg: 'HS256', typ: 'JWT' }), b64({ alg: 'none' }), b64({ alg: 'RS256' }), b64({ alg: 'HS512' })),
);
const tokenLike = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.')),
);

/** One edit of a token: a character replaced, inserted or removed, or two of its parts swapped. */
type Edit = { kind: 'replace' | 'insert' | 'remove'; at: number; char: string } | { kind: 'swap'; a: number; b: number };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('replace' as const, 'insert' as const, 'remove' as const),
    at: fc.nat(),
    char: fc.oneof(fc.constantFrom(...B64URL), fc.string({ minLength: 1, maxLength: 1 })),
  }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(2), b: fc.nat(2) }),
);
function applyEdit(token: string, e: Edit): string {
  if (e.kind === 'swap') {
    const parts = token.split('.');
    [parts[e.a], parts[e.b]] = [parts[e.b], parts[e.a]];
    return parts.join('.');
  }
  const at = e.at % (token.length + 1);
  if (e.kind === 'insert') return token.slice(0, at) + e.char + token.slice(at);
  const end = Math.min(at + 1, token.length);
  return token.slice(0, at) + (e.kind === 'replace' ? e.char : '') + token.slice(end);
}

describe('TokenVerifier, property-based', () => {
  it('R-TN-1 R-OP-4 any string is refused with UnauthenticatedError, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(tokenLike, async (token) => {
        expectRefused(await outcome(token));
      }),
      { numRuns: 500 },
    );
  });

  it('R-TN-1 R-OP-4 a mangled valid token is refused with UnauthenticatedError, or is the same token and claims', async () => {
    const valid = await signToken({ ...CLAIMS, secret: SECRET });
    const claims = { ...CLAIMS, issuedAt: JSON.parse(Buffer.from(valid.split('.')[1], 'base64url').toString()).iat as number };
    await expect(verifier.verify(valid)).resolves.toEqual(claims);
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
        const mangled = edits.reduce(applyEdit, valid);
        const result = await outcome(mangled);
        if (result instanceof Error) return expectRefused(result);
        // Accepted only if the header and payload are the signed ones: the signature's last
        // character carries unused bits, so another spelling of the same bytes may verify.
        expect(result).toEqual(claims);
        expect(mangled.split('.').slice(0, 2)).toEqual(valid.split('.').slice(0, 2));
      }),
      { numRuns: 500 },
    );
  });

  it('R-TN-1 R-OP-4 a correctly signed token with arbitrary claims verifies to UUIDs and known scopes, or is refused', async () => {
    const claimValue = fc.oneof(fc.jsonValue(), fc.uuid(), fc.constantFrom('memory:read admin', 'admin  bogus\tmemory:write'));
    await fc.assert(
      fc.asyncProperty(
        fc.record({ sub: claimValue, tid: claimValue, scope: claimValue }, { requiredKeys: [] }),
        fc.option(fc.integer({ min: -3600, max: 3600 }), { nil: undefined }),
        // When it was issued: absent, recent, in the future, or older than the longest token age (30 days).
        fc.option(fc.integer({ min: -40 * 86_400, max: 3600 }), { nil: undefined }),
        async (claims, expiresIn, issuedAgo) => {
          const now = Math.floor(Date.now() / 1000);
          let jwt = new SignJWT(claims as Record<string, unknown>).setProtectedHeader({ alg: 'HS256' });
          if (expiresIn !== undefined) jwt = jwt.setExpirationTime(now + expiresIn);
          if (issuedAgo !== undefined) jwt = jwt.setIssuedAt(now + issuedAgo);
          const result = await outcome(await jwt.sign(new TextEncoder().encode(SECRET)));
          if (result instanceof Error) return expectRefused(result);
          const verified = result as typeof CLAIMS & { issuedAt: number };
          expect(verified.userId).toMatch(/^[0-9a-f-]{36}$/);
          expect(verified.teamId).toMatch(/^[0-9a-f-]{36}$/);
          expect(now - verified.issuedAt).toBeLessThanOrEqual(30 * 86_400);
          for (const scope of verified.scopes) expect(['memory:read', 'memory:write', 'feedback:write', 'admin']).toContain(scope);
        },
      ),
      { numRuns: 300 },
    );
  });
});
