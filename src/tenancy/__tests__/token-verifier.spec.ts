import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { loadConfig } from '../../config/load-config';
import { signToken } from '../token-signer';
import { TokenVerifier } from '../token-verifier';

const SECRET = 's'.repeat(48);
const USER = '5f0c7a2e-1b3d-4c5e-8f9a-0b1c2d3e4f50';
const TEAM = '6a1d8b3f-2c4e-4d6f-9a0b-1c2d3e4f5061';

/**
 * Runs `check` with the clock (Date, which jose and the token cache read) moved on
 * by `ms`, instead of sleeping; timers and I/O stay real (the HMAC check runs on libuv).
 */
async function afterClockMoves(ms: number, check: () => Promise<unknown>): Promise<void> {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask'],
  });
  try {
    jest.setSystemTime(Date.now() + ms);
    await check();
  } finally {
    jest.useRealTimers();
  }
}

describe('TokenVerifier', () => {
  const verifier = new TokenVerifier(
    loadConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_ISSUER: 'issuer-a', AUTH_JWT_AUDIENCE: 'recall-ledger' }),
  );
  const mint = (overrides: Partial<Parameters<typeof signToken>[0]> = {}) =>
    signToken({
      userId: USER,
      teamId: TEAM,
      scopes: ['memory:read'],
      secret: SECRET,
      issuer: 'issuer-a',
      audience: 'recall-ledger',
      ...overrides,
    });

  it('R-TN-1 accepts an HS256 token and returns user, team and scopes', async () => {
    await expect(verifier.verify(await mint())).resolves.toEqual({
      userId: USER,
      teamId: TEAM,
      scopes: ['memory:read'],
      issuedAt: expect.any(Number),
    });
  });

  it.each([
    ['expired', { expiresInSeconds: -5 }],
    ['signed with another secret', { secret: 'o'.repeat(48) }],
    ['from another issuer', { issuer: 'issuer-b' }],
    ['for another audience', { audience: 'someone-else' }],
    ['with a sub that is not a UUID', { userId: 'alice' }],
    ['with a tid that is not a UUID', { teamId: 'team' }],
  ])('R-TN-1 rejects a token %s as UNAUTHENTICATED', async (_label, overrides) => {
    await expect(verifier.verify(await mint(overrides))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('R-TN-1 accepts a token issued for any of the configured audiences (the MCP resource identifier among them)', async () => {
    const audiences = new TokenVerifier(
      loadConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_ISSUER: 'issuer-a', AUTH_JWT_AUDIENCE: 'recall-ledger, https://r.example/mcp' }),
    );
    await expect(audiences.verify(await mint({ audience: 'https://r.example/mcp' }))).resolves.toMatchObject({ userId: USER });
    await expect(audiences.verify(await mint())).resolves.toMatchObject({ userId: USER });
    await expect(audiences.verify(await mint({ audience: 'https://r.example' }))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('R-TN-1 rejects a token without exp', async () => {
    const token = await new SignJWT({ tid: TEAM })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(USER)
      .setIssuer('issuer-a')
      .setAudience('recall-ledger')
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  describe("issued at (R-RT-4: a deleted user's tombstone outlives every token issued before it)", () => {
    const unsigned = (iat: number | undefined) => {
      let jwt = new SignJWT({ tid: TEAM }).setProtectedHeader({ alg: 'HS256' }).setSubject(USER).setExpirationTime('1h');
      if (iat !== undefined) jwt = jwt.setIssuedAt(iat);
      return jwt.sign(new TextEncoder().encode(SECRET));
    };
    const plain = (env: Record<string, string> = {}) => new TokenVerifier(loadConfig({ AUTH_JWT_SECRET: SECRET, ...env }));
    const now = () => Math.floor(Date.now() / 1000);

    it.each([
      ['without iat', undefined],
      ['issued more than 30 days ago (the default AUTH_TOKEN_MAX_AGE_SECONDS)', -31 * 86_400],
      ['issued in the future', 3600],
    ])('R-RT-4 R-TN-1 refuses a token %s, saying what a token needs', async (_label, offset) => {
      const token = await unsigned(offset === undefined ? undefined : now() + offset);
      await expect(plain().verify(token)).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: expect.stringContaining('needs an iat claim (when it was issued), at most 2592000 seconds ago'),
      });
    });

    it('R-RT-4 returns iat with the claims, and AUTH_TOKEN_MAX_AGE_SECONDS sets how old a token may be', async () => {
      const issuedAt = now() - 120;
      await expect(plain().verify(await unsigned(issuedAt))).resolves.toMatchObject({ userId: USER, issuedAt });
      await expect(plain({ AUTH_TOKEN_MAX_AGE_SECONDS: '60' }).verify(await unsigned(issuedAt))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
      });
    });

    it('R-RT-4 a kept token is refused once it is older than AUTH_TOKEN_MAX_AGE_SECONDS, though its exp is later', async () => {
      const cached = plain({ AUTH_TOKEN_MAX_AGE_SECONDS: '60' });
      // Issued 59 s ago: accepted and kept, for one second more.
      const token = await unsigned(now() - 59);
      await expect(cached.verify(token)).resolves.toMatchObject({ userId: USER });
      await afterClockMoves(2_100, () => expect(cached.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' }));
    });
  });

  describe('verified tokens kept until their exp (issue 25)', () => {
    const config = (size?: number) =>
      loadConfig({ AUTH_JWT_SECRET: SECRET, ...(size === undefined ? {} : { AUTH_TOKEN_CACHE_SIZE: String(size) }) });
    // The signature check is what the cache saves; counting its calls shows which requests paid it.
    const counting = (cached: TokenVerifier) => jest.spyOn(cached as unknown as { verifySignature: () => unknown }, 'verifySignature');

    it('R-TN-1 a token verified once is answered again without verifying its signature, with the same claims', async () => {
      const cached = new TokenVerifier(config());
      const checks = counting(cached);
      const token = await signToken({ userId: USER, teamId: TEAM, scopes: ['memory:read', 'admin'], secret: SECRET });
      const first = await cached.verify(token);
      await expect(cached.verify(token)).resolves.toEqual(first);
      await expect(cached.verify(token)).resolves.toEqual({ ...first, scopes: ['admin', 'memory:read'] });
      expect(checks).toHaveBeenCalledTimes(1);
      // Shared between requests, so nobody can change them.
      expect(Object.isFrozen(first) && Object.isFrozen(first.scopes)).toBe(true);
    });

    it('R-TN-1 a kept token is refused once its exp has passed', async () => {
      const cached = new TokenVerifier(config());
      const token = await signToken({ userId: USER, teamId: TEAM, scopes: ['memory:read'], secret: SECRET, expiresInSeconds: 1 });
      await expect(cached.verify(token)).resolves.toMatchObject({ userId: USER });
      const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp: number };
      await afterClockMoves(exp * 1000 - Date.now() + 20, () =>
        expect(cached.verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' }),
      );
    });

    it('R-TN-1 a token that failed is never kept, and a different token is verified on its own', async () => {
      const cached = new TokenVerifier(config());
      const checks = counting(cached);
      const forged = await signToken({ userId: USER, teamId: TEAM, scopes: ['admin'], secret: 'o'.repeat(48) });
      await expect(cached.verify(forged)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      await expect(cached.verify(forged)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      const good = await signToken({ userId: USER, teamId: TEAM, scopes: ['memory:read'], secret: SECRET });
      await cached.verify(good);
      // A token differing from the kept one in its signature alone is checked, and refused.
      await expect(cached.verify(`${good.slice(0, -2)}${good.endsWith('AA') ? 'AB' : 'AA'}`)).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
      });
      expect(checks).toHaveBeenCalledTimes(4);
    });

    it('R-TN-1 the cache is bounded (the least recently used goes first), and AUTH_TOKEN_CACHE_SIZE=0 verifies every time', async () => {
      const small = new TokenVerifier(config(2));
      const checks = counting(small);
      const tokens = await Promise.all(
        ['memory:read', 'memory:write', 'admin'].map((scope) => signToken({ userId: USER, teamId: TEAM, scopes: [scope], secret: SECRET })),
      );
      for (const token of tokens) await small.verify(token);
      await small.verify(tokens[2]);
      await small.verify(tokens[0]);
      expect(checks).toHaveBeenCalledTimes(4);

      const none = new TokenVerifier(config(0));
      const uncached = counting(none);
      await none.verify(tokens[0]);
      await none.verify(tokens[0]);
      expect(uncached).toHaveBeenCalledTimes(2);
    });
  });

  describe('with a JWKS URL (a key set served here, keys made here)', () => {
    type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
    let server: Server;
    let url: string;
    const keys = new Map<string, KeyPair>();
    /** The kids the endpoint serves now; rotating is changing this list. */
    let served: string[] = [];
    let fetches = 0;

    beforeAll(async () => {
      for (const kid of ['k1', 'k2', 'stray']) keys.set(kid, await generateKeyPair('ES256'));
      server = createServer((_req, res) => {
        fetches++;
        void Promise.all(
          served.map(async (kid) => ({ ...(await exportJWK(keys.get(kid)!.publicKey)), kid, alg: 'ES256', use: 'sig' })),
        ).then((jwks) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: jwks })));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });
    beforeEach(() => {
      served = ['k1'];
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    /** A verifier of the key set that keeps no token, so every call is verified against the set. */
    const jwksVerifier = (env: Record<string, string> = {}) =>
      new TokenVerifier(
        loadConfig({
          AUTH_JWKS_URL: url,
          AUTH_JWT_ISSUER: 'https://issuer.example',
          AUTH_JWT_AUDIENCE: 'recall-ledger',
          AUTH_TOKEN_CACHE_SIZE: '0',
          ...env,
        }),
      );
    const es256 = (kid: string | undefined, claims: { iss?: string; aud?: string } = {}) => {
      const jwt = new SignJWT({ tid: TEAM, scope: 'admin' })
        .setProtectedHeader(kid === undefined ? { alg: 'ES256' } : { alg: 'ES256', kid })
        .setSubject(USER)
        .setIssuer(claims.iss ?? 'https://issuer.example')
        .setAudience(claims.aud ?? 'recall-ledger')
        .setIssuedAt()
        .setExpirationTime('5m');
      return jwt.sign(keys.get(kid ?? 'k1')!.privateKey);
    };
    const refused = { code: 'UNAUTHENTICATED' };

    it('R-TN-1 accepts an ES256 token whose key is in the JWKS, and refuses HS256 when no secret is set', async () => {
      await expect(jwksVerifier().verify(await es256('k1'))).resolves.toMatchObject({ userId: USER, teamId: TEAM, scopes: ['admin'] });
      await expect(jwksVerifier().verify(await mint({ issuer: undefined, audience: undefined }))).rejects.toMatchObject(refused);
    });

    it('R-TN-1 refuses a token from the right key for another issuer or another audience', async () => {
      const verifier = jwksVerifier();
      await expect(verifier.verify(await es256('k1', { iss: 'https://other.example' }))).rejects.toMatchObject(refused);
      await expect(verifier.verify(await es256('k1', { aud: 'another-service' }))).rejects.toMatchObject(refused);
      await expect(verifier.verify(await es256('k1'))).resolves.toMatchObject({ userId: USER });
    });

    it('R-TN-1 refuses a token without a kid, even when the set holds one key of its algorithm, saying what is missing', async () => {
      await expect(jwksVerifier().verify(await es256(undefined))).rejects.toMatchObject({
        ...refused,
        message: expect.stringMatching(/needs a kid/),
      });
    });

    it('R-TN-1 refuses a token whose kid is not in the set, and one signed by another key under a kid that is', async () => {
      const verifier = jwksVerifier();
      await expect(verifier.verify(await es256('stray'))).rejects.toMatchObject(refused);
      const forged = await new SignJWT({ tid: TEAM })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setSubject(USER)
        .setIssuer('https://issuer.example')
        .setAudience('recall-ledger')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(keys.get('stray')!.privateKey);
      await expect(verifier.verify(forged)).rejects.toMatchObject(refused);
    });

    it('R-TN-1 after a rotation the new key is found by its kid and the rotated-out key is refused (AUTH_JWKS_CACHE_MAX_AGE_MS)', async () => {
      const verifier = jwksVerifier({ AUTH_JWKS_CACHE_MAX_AGE_MS: '0' });
      const old = await es256('k1');
      await expect(verifier.verify(old)).resolves.toMatchObject({ userId: USER });
      served = ['k2'];
      const before = fetches;
      await expect(verifier.verify(await es256('k2'))).resolves.toMatchObject({ userId: USER });
      expect(fetches).toBeGreaterThan(before);
      await expect(verifier.verify(old)).rejects.toMatchObject(refused);
    });

    it('R-TN-1 a fetched set is used for its max age: within it, no fetch per token', async () => {
      const verifier = jwksVerifier();
      await verifier.verify(await es256('k1'));
      const after = fetches;
      for (let i = 0; i < 3; i++) await verifier.verify(await es256('k1'));
      expect(fetches).toBe(after);
    });
  });
});
