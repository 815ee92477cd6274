import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, secretFile } from '../load-config';

const SECRET = 'x'.repeat(40);

/** The ConfigError message `loadConfig(env)` throws. */
function refusalOf(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('loadConfig', () => {
  it('R-OP-1 fills the documented defaults', () => {
    const config = loadConfig({ AUTH_JWT_SECRET: SECRET });
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      http: { bodyLimit: '10mb' },
      database: { url: undefined, poolMax: 20, acquireTimeoutMs: 5000, statementTimeoutMs: 15000 },
      featureFlags: { cacheTtlMs: 5000 },
      recall: { blockRows: 5, blockTokenBudget: 300, intentGating: false },
      lookup: { maxReturnChars: 500_000, answerMaxTokens: 8_000 },
      retention: { batchSize: 5000, batchPauseMs: 0 },
      graphql: { maxPayloadValues: 200 },
      toolResults: { responseMaxPayloadBytes: 16_777_216 },
    });
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, RETENTION_BATCH_PAUSE_MS: '25' }).retention.batchPauseMs).toBe(25);
    expect(config.database.embeddedDir).toMatch(/\.data\/pg$/);
  });

  it('R-OP-6 client-side database deadlines: the read timeout a second past the statement timeout, the database time per request 1.5 s past it', () => {
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET }).database).toMatchObject({
      statementTimeoutMs: 15000,
      queryTimeoutMs: 16000,
      connectTimeoutMs: 5000,
      keepAliveIdleMs: 10000,
      timePerRequestMs: 16500,
    });
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, DB_STATEMENT_TIMEOUT_MS: '1000' }).database).toMatchObject({
      queryTimeoutMs: 2000,
      timePerRequestMs: 2500,
    });
    const set = {
      DB_QUERY_TIMEOUT_MS: '20000',
      DB_CONNECT_TIMEOUT_MS: '2000',
      DB_KEEPALIVE_IDLE_MS: '3000',
      DB_TIME_PER_REQUEST_MS: '30000',
    };
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, ...set }).database).toMatchObject({
      queryTimeoutMs: 20000,
      connectTimeoutMs: 2000,
      keepAliveIdleMs: 3000,
      timePerRequestMs: 30000,
    });
    // At or under the statement timeout, the service would close connections under statements PostgreSQL still runs.
    expect(refusalOf({ AUTH_JWT_SECRET: SECRET, DB_QUERY_TIMEOUT_MS: '15000' })).toMatch(
      /DB_QUERY_TIMEOUT_MS \(15000\) must be over DB_STATEMENT_TIMEOUT_MS \(15000\)/,
    );
  });

  it('R-TN-10 R-TN-11 fairness defaults: 3 requests in flight (16 for a team alone), 256 waiting at most 5 s, Retry-After 1 s, half the pool per team (at least 1)', () => {
    const config = loadConfig({ AUTH_JWT_SECRET: SECRET });
    expect(config.admission).toEqual({
      maxInFlight: 2,
      maxInFlightAlone: 16,
      maxLargeInFlight: 1,
      largeRequestFromBytes: 1048576,
      largeQueueWaitMs: 30000,
      queueMax: 256,
      queueWaitMs: 5000,
      retryAfterSeconds: 1,
    });
    expect(config.database.maxConnectionsPerTeam).toBe(10);
    // Alone never below shared: MAX_IN_FLIGHT raised past the alone default raises both.
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, MAX_IN_FLIGHT: '32' }).admission).toMatchObject({ maxInFlight: 32, maxInFlightAlone: 32 });
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, DB_POOL_MAX: '5' }).database.maxConnectionsPerTeam).toBe(2);
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, DB_POOL_MAX: '1' }).database.maxConnectionsPerTeam).toBe(1);
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, TEAM_MAX_DB_CONNECTIONS: '20' }).database.maxConnectionsPerTeam).toBe(20);
    expect(refusalOf({ AUTH_JWT_SECRET: SECRET, TEAM_MAX_DB_CONNECTIONS: '21' })).toMatch(
      /TEAM_MAX_DB_CONNECTIONS \(21\) is over DB_POOL_MAX \(20\)/,
    );
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, MAX_IN_FLIGHT: '0' })).toThrow(/MAX_IN_FLIGHT must not be less than 1$/m);
    // The per-team cap it replaces refused a team on an idle replica: set, it stops the start and says what replaced it.
    expect(refusalOf({ AUTH_JWT_SECRET: SECRET, TEAM_MAX_IN_FLIGHT: '8' })).toMatch(/TEAM_MAX_IN_FLIGHT is gone: .*MAX_IN_FLIGHT/);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://x'],
    ['FEATURE_FLAG_CACHE_TTL_MS', '-1'],
    ['AUTH_JWT_SECRET', 'short'],
    ['HTTP_BODY_LIMIT', 'huge'],
    ['LOOKUP_MAX_RETURN_CHARS', '999'],
    ['LOOKUP_MAX_RETURN_CHARS', 'lots'],
    ['RECALL_MAX_RETURN_CHARS', '999'],
    ['RETENTION_BATCH_PAUSE_MS', '-5'],
    ['PUBLIC_URL', 'recall.example.com'],
    ['PUBLIC_URL', 'https://recall.example.com/api'],
    ['ALLOWED_HOSTS', 'a.example.com, https://b.example.com'],
    ['ALLOWED_ORIGINS', 'app.example.com'],
    ['ALLOWED_ORIGINS', 'https://app.example.com/path'],
    ['AUTH_AUTHORIZATION_SERVERS', 'auth.example.com'],
    ['GRAPHQL_MAX_PAYLOAD_VALUES', '0'],
    ['RESPONSE_MAX_PAYLOAD_CHARS', '100'],
  ])('R-OP-1 a malformed %s=%s is refused with a message naming it', (name, value) => {
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, [name]: value })).toThrow(name);
  });

  it('R-OP-1 a deprecated setting is still read, and says once what to rename it; its new name wins when both are set', () => {
    const old = loadConfig({ AUTH_JWT_SECRET: SECRET, RECALL_ANSWER_MAX_TOKENS: '4000', RECALL_TEXT_CACHE_CHARS: '0' });
    expect(old.lookup).toMatchObject({ answerMaxTokens: 4000, textCacheChars: 0 });
    expect(old.deprecations).toEqual([
      'RECALL_ANSWER_MAX_TOKENS is deprecated: rename it LOOKUP_ANSWER_MAX_TOKENS (it is read as LOOKUP_ANSWER_MAX_TOKENS until then).',
      'RECALL_TEXT_CACHE_CHARS is deprecated: rename it LOOKUP_TEXT_CACHE_CHARS (it is read as LOOKUP_TEXT_CACHE_CHARS until then).',
    ]);
    const both = loadConfig({ AUTH_JWT_SECRET: SECRET, RECALL_MAX_RETURN_CHARS: '2000', LOOKUP_MAX_RETURN_CHARS: '3000' });
    expect(both.lookup.maxReturnChars).toBe(3000);
    expect(both.deprecations).toEqual([
      'RECALL_MAX_RETURN_CHARS is deprecated and ignored: LOOKUP_MAX_RETURN_CHARS is set too; remove RECALL_MAX_RETURN_CHARS.',
    ]);
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET }).deprecations).toEqual([]);
  });

  it('R-OP-1 an integer variable says what is wrong: not an integer before out of range', () => {
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, PORT: 'abc' })).toThrow(/PORT must be an integer number$/m);
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, PORT: '70000' })).toThrow(/PORT must not be greater than 65535$/m);
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, DB_POOL_MAX: '0' })).toThrow(/DB_POOL_MAX must not be less than 1$/m);
  });

  it('R-TN-1 production refuses to start without a way to verify tokens', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toThrow(/AUTH_JWT_SECRET or AUTH_JWKS_URL/);
  });

  it('R-TN-1 production with a JWKS needs both the issuer and the audience, naming what is missing', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_JWKS_URL: 'https://auth.example.com/.well-known/jwks.json',
      ALLOW_EMBEDDED_DB: 'true',
      PUBLIC_URL: 'https://recall.example.com',
    };
    const issuer = { AUTH_JWT_ISSUER: 'https://auth.example.com' };
    const audience = { AUTH_JWT_AUDIENCE: 'https://recall.example.com/mcp' };
    for (const [env, missing] of [
      [{}, 'AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE'],
      [issuer, 'AUTH_JWT_AUDIENCE'],
      [audience, 'AUTH_JWT_ISSUER'],
    ] as const) {
      const refusal = refusalOf({ ...production, ...env });
      expect(refusal).toContain(`NODE_ENV=production with AUTH_JWKS_URL needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE (missing: ${missing})`);
      expect(refusal).toContain("the key set's other tokens would create teams and users here");
      expect(refusal).not.toContain('\n');
    }
    expect(loadConfig({ ...production, ...issuer, ...audience }).auth).toMatchObject({
      jwtSecret: undefined,
      issuer: 'https://auth.example.com',
      audiences: ['https://recall.example.com/mcp'],
    });
    // Outside production, and with a shared secret, neither is required.
    expect(loadConfig({ AUTH_JWKS_URL: production.AUTH_JWKS_URL }).auth.jwksUrl).toBe(production.AUTH_JWKS_URL);
    expect(loadConfig({ ...production, AUTH_JWKS_URL: undefined, AUTH_JWT_SECRET: SECRET }).isProduction).toBe(true);
  });

  it('R-TN-8 production on DATABASE_URL needs the request role password (or its own URL), never one generated per machine', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: SECRET,
      DATABASE_URL: 'postgres://db/x',
      PUBLIC_URL: 'https://x.example',
    };
    expect(() => loadConfig(production)).toThrow(/DATABASE_APP_PASSWORD .* or DATABASE_APP_URL/);
    const password = 'a-password-of-the-request-role';
    expect(loadConfig({ ...production, DATABASE_APP_PASSWORD: password }).database.appPassword).toBe(password);
    expect(loadConfig({ ...production, DATABASE_APP_URL: 'postgres://rl_app:pw@db/x' }).database.appUrl).toBe('postgres://rl_app:pw@db/x');
    expect(() => loadConfig({ ...production, DATABASE_APP_PASSWORD: 'short' })).toThrow(/DATABASE_APP_PASSWORD must be at least 16/);
  });

  it('R-OP-1 production refuses the embedded database unless ALLOW_EMBEDDED_DB=true', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET })).toThrow(/DATABASE_URL/);
    expect(
      loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET, ALLOW_EMBEDDED_DB: 'true', PUBLIC_URL: 'https://x.example' })
        .isProduction,
    ).toBe(true);
  });

  describe('R-MCP-1 the hosts and origins the API answers (DNS rebinding protection)', () => {
    const production = { NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET, ALLOW_EMBEDDED_DB: 'true' };

    it('production names its public host itself: no default, start-up refuses without PUBLIC_URL or ALLOWED_HOSTS', () => {
      expect(() => loadConfig(production)).toThrow(/PUBLIC_URL .* or ALLOWED_HOSTS/);
      expect(loadConfig({ ...production, PUBLIC_URL: 'https://recall.example.com/' }).http).toMatchObject({
        publicUrl: 'https://recall.example.com',
        allowedHosts: ['recall.example.com'],
        allowedOrigins: [],
      });
      expect(loadConfig({ ...production, ALLOWED_HOSTS: 'a.example.com:8443, B.example.com' }).http.allowedHosts).toEqual([
        'a.example.com',
        'b.example.com',
      ]);
    });

    it('production with ALLOWED_HOSTS=* needs PUBLIC_URL: the metadata would name any Host', () => {
      const refusal = refusalOf({ ...production, ALLOWED_HOSTS: '*' });
      expect(refusal).toMatch(/^NODE_ENV=production with ALLOWED_HOSTS=\* needs PUBLIC_URL .*OAuth metadata/);
      expect(refusal).not.toContain('\n');
      expect(loadConfig({ ...production, ALLOWED_HOSTS: '*', PUBLIC_URL: 'https://recall.example.com' }).http.allowedHosts).toBe('*');
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, ALLOWED_HOSTS: '*' }).http.allowedHosts).toBe('*');
    });

    it('hosts are read as the Host header is: strictly, lower case, IPv6 in its short form; PUBLIC_URL is rebuilt from its parts', () => {
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, ALLOWED_HOSTS: 'Box.LAN:8080, [0:0:0:0:0:0:0:1], 10.0.0.7' }).http.allowedHosts).toEqual(
        ['box.lan', '[::1]', '10.0.0.7'],
      );
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, PUBLIC_URL: 'https://Recall.Example.com:443/' }).http).toMatchObject({
        publicUrl: 'https://recall.example.com',
      });
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, PUBLIC_URL: 'http://[::1]:3000' }).http.publicUrl).toBe('http://[::1]:3000');
      for (const [name, value] of [
        ['ALLOWED_HOSTS', 'allowed.example\\@evil.example'],
        ['ALLOWED_HOSTS', 'user@allowed.example'],
        ['ALLOWED_HOSTS', 'bücher.example'],
        ['ALLOWED_HOSTS', 'box.lan:0'],
        ['PUBLIC_URL', 'https://allowed.example\\@evil.example'],
        ['PUBLIC_URL', 'https://user@recall.example.com'],
      ]) {
        expect(refusalOf({ AUTH_JWT_SECRET: SECRET, [name]: value })).toMatch(
          new RegExp(`^${name}: ".*" is not a host name with an optional port .*xn-- form\\)\\.$`),
        );
      }
    });

    it('outside production the loopback names on any port are the default, beside PUBLIC_URL; ALLOWED_HOSTS replaces them', () => {
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET }).http.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, PUBLIC_URL: 'http://dev.example:3000' }).http.allowedHosts).toEqual([
        'dev.example',
        'localhost',
        '127.0.0.1',
        '[::1]',
      ]);
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, ALLOWED_HOSTS: 'box.lan' }).http.allowedHosts).toEqual(['box.lan']);
      expect(loadConfig({ AUTH_JWT_SECRET: SECRET, ALLOWED_HOSTS: '*', ALLOWED_ORIGINS: '*' }).http).toMatchObject({
        allowedHosts: '*',
        allowedOrigins: '*',
      });
      expect(
        loadConfig({ AUTH_JWT_SECRET: SECRET, ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173' }).http.allowedOrigins,
      ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    });
  });

  it('R-MCP-1 TRUSTED_PROXIES: addresses, CIDR ranges and Express’ names; unset trusts no proxy; anything else is named', () => {
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET }).http.trustedProxies).toEqual([]);
    expect(
      loadConfig({ AUTH_JWT_SECRET: SECRET, TRUSTED_PROXIES: 'loopback, 10.0.0.0/8,fd00::/8, 192.168.1.1/255.255.255.0, uniquelocal' }).http
        .trustedProxies,
    ).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.168.1.1/255.255.255.0', 'uniquelocal']);
    for (const [value, entry] of [
      ['proxy.internal', 'proxy.internal'],
      ['10.0.0.1, 10.0.0.0/33', '10.0.0.0/33'],
      ['*', '*'],
      ['true', 'true'],
      // Express would take a number as a hop count, proxy-addr reads it as the address 0.0.0.1.
      ['1', '1'],
      ['loopback,,10.0.0.1', ''],
    ]) {
      expect(refusalOf({ AUTH_JWT_SECRET: SECRET, TRUSTED_PROXIES: value })).toContain(
        `TRUSTED_PROXIES: ${JSON.stringify(entry)} is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`,
      );
    }
  });

  it('R-TN-1 audiences are a list; the authorization servers default to the issuer when it is a URL', () => {
    const config = loadConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_AUDIENCE: 'https://r.example/mcp, https://r.example' });
    expect(config.auth).toMatchObject({ audiences: ['https://r.example/mcp', 'https://r.example'], authorizationServers: [] });
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_ISSUER: 'https://auth.example' }).auth.authorizationServers).toEqual([
      'https://auth.example',
    ]);
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, AUTH_JWT_ISSUER: 'issuer-a' }).auth.authorizationServers).toEqual([]);
    expect(
      loadConfig({
        AUTH_JWT_SECRET: SECRET,
        AUTH_JWT_ISSUER: 'https://auth.example',
        AUTH_AUTHORIZATION_SERVERS: 'https://a.example,https://b.example',
      }).auth.authorizationServers,
    ).toEqual(['https://a.example', 'https://b.example']);
  });

  it('R-TN-1 development without a secret creates one once under the data dir and keeps it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rl-config-'));
    const first = loadConfig({ DATA_DIR: dataDir }).auth.jwtSecret;
    const second = loadConfig({ DATA_DIR: dataDir }).auth.jwtSecret;
    expect(first).toHaveLength(64);
    expect(second).toBe(first);
    expect(readFileSync(join(dataDir, 'dev-jwt-secret'), 'utf8').trim()).toBe(first);
    expect(statSync(join(dataDir, 'dev-jwt-secret')).mode & 0o777).toBe(0o600);
  });
});

describe('secretFile', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rl-secret-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The one-line ConfigError message `secretFile` refuses the data dir's `name` with. */
  function refusal(name: string): string {
    let message = '';
    expect(() => {
      try {
        secretFile(dataDir, name);
      } catch (error) {
        message = (error as Error).message;
        throw error;
      }
    }).toThrow(ConfigError);
    expect(message).not.toContain('\n');
    return message;
  }

  it('R-TN-1 creates the secret once, a regular file of the service’s user with mode 0600, and reads it back', () => {
    const first = secretFile(join(dataDir, 'new'), 'db-app-password');
    const file = join(dataDir, 'new', 'db-app-password');
    expect(first).toHaveLength(64);
    expect(secretFile(join(dataDir, 'new'), 'db-app-password')).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).uid).toBe(process.getuid!());
  });

  it.each([0o640, 0o604, 0o620, 0o602, 0o660, 0o644])('R-TN-1 refuses a secret file of mode %o, saying chmod 600', (mode) => {
    const file = join(dataDir, 'db-app-password');
    writeFileSync(file, 'a-secret-someone-else-may-read\n', { mode: 0o600 });
    chmodSync(file, mode);
    expect(refusal('db-app-password')).toBe(
      `The secret file ${file} may be read or written by group or others (mode 0${mode.toString(8)}); run chmod 600 ${file}.`,
    );
    chmodSync(file, 0o600);
    expect(secretFile(dataDir, 'db-app-password')).toBe('a-secret-someone-else-may-read');
  });

  it('R-TN-1 refuses a symbolic link, even to a good secret file', () => {
    const target = join(dataDir, 'elsewhere');
    writeFileSync(target, 'the-target\n', { mode: 0o600 });
    symlinkSync(target, join(dataDir, 'dev-jwt-secret'));
    expect(refusal('dev-jwt-secret')).toBe(
      `The secret file ${join(dataDir, 'dev-jwt-secret')} is a symbolic link; replace it with the file itself (a regular file, mode 0600).`,
    );
    // A dangling link is not followed to create a file at its target either.
    symlinkSync(join(dataDir, 'nowhere'), join(dataDir, 'db-app-password'));
    expect(refusal('db-app-password')).toContain('is a symbolic link');
    expect(() => statSync(join(dataDir, 'nowhere'))).toThrow();
  });

  it('R-TN-1 refuses what is not a regular file', () => {
    mkdirSync(join(dataDir, 'dev-jwt-secret'));
    expect(refusal('dev-jwt-secret')).toBe(
      `The secret file ${join(dataDir, 'dev-jwt-secret')} is not a regular file; remove it and start again to have one made.`,
    );
  });

  it('R-TN-1 refuses a secret file another user owns, saying chown', () => {
    const file = join(dataDir, 'db-app-password');
    writeFileSync(file, 'planted\n', { mode: 0o600 });
    const self = process.getuid!();
    // Root hands the file to another user; anyone else runs the service as another user (the file stays theirs).
    let owner = self;
    let service = self + 1;
    if (self === 0) [owner, service] = [4321, 0];
    if (self === 0) chownSync(file, owner, owner);
    const getuid = jest.spyOn(process, 'getuid').mockReturnValue(service);
    try {
      expect(refusal('db-app-password')).toBe(
        `The secret file ${file} belongs to uid ${owner}, not to the service's user (uid ${service}); run chown ${service} ${file}, or start the service as its owner.`,
      );
    } finally {
      getuid.mockRestore();
    }
  });

  it('R-TN-1 the development JWT secret is held to the same rules at configuration load', () => {
    writeFileSync(join(dataDir, 'dev-jwt-secret'), `${'s'.repeat(64)}\n`, { mode: 0o600 });
    chmodSync(join(dataDir, 'dev-jwt-secret'), 0o640);
    expect(() => loadConfig({ DATA_DIR: dataDir })).toThrow(/^The secret file .*dev-jwt-secret may be read or written by group or others/);
  });
});
