import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../load-config';

const SECRET = 'x'.repeat(40);

describe('loadConfig', () => {
  it('R-OP-1 fills the documented defaults', () => {
    const config = loadConfig({ AUTH_JWT_SECRET: SECRET });
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      http: { bodyLimit: '10mb' },
      database: { url: undefined, poolMax: 20, acquireTimeoutMs: 5000, statementTimeoutMs: 15000 },
      featureFlags: { cacheTtlMs: 5000 },
      recall: { maxReturnChars: 500_000 },
      retention: { batchSize: 5000, batchPauseMs: 0 },
    });
    expect(loadConfig({ AUTH_JWT_SECRET: SECRET, RETENTION_BATCH_PAUSE_MS: '25' }).retention.batchPauseMs).toBe(25);
    expect(config.database.embeddedDir).toMatch(/\.data\/pg$/);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://x'],
    ['FEATURE_FLAG_CACHE_TTL_MS', '-1'],
    ['AUTH_JWT_SECRET', 'short'],
    ['HTTP_BODY_LIMIT', 'huge'],
    ['RECALL_MAX_RETURN_CHARS', '999'],
    ['RECALL_MAX_RETURN_CHARS', 'lots'],
    ['RETENTION_BATCH_PAUSE_MS', '-5'],
  ])('R-OP-1 a malformed %s=%s is refused with a message naming it', (name, value) => {
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ AUTH_JWT_SECRET: SECRET, [name]: value })).toThrow(name);
  });

  it('R-TN-1 production refuses to start without a way to verify tokens', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toThrow(/AUTH_JWT_SECRET or AUTH_JWKS_URL/);
  });

  it('R-TN-8 production on DATABASE_URL needs the request role password (or its own URL), never one generated per machine', () => {
    const production = { NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET, DATABASE_URL: 'postgres://db/x' };
    expect(() => loadConfig(production)).toThrow(/DATABASE_APP_PASSWORD .* or DATABASE_APP_URL/);
    const password = 'a-password-of-the-request-role';
    expect(loadConfig({ ...production, DATABASE_APP_PASSWORD: password }).database.appPassword).toBe(password);
    expect(loadConfig({ ...production, DATABASE_APP_URL: 'postgres://rl_app:pw@db/x' }).database.appUrl).toBe('postgres://rl_app:pw@db/x');
    expect(() => loadConfig({ ...production, DATABASE_APP_PASSWORD: 'short' })).toThrow(/DATABASE_APP_PASSWORD must be at least 16/);
  });

  it('R-OP-1 production refuses the embedded database unless ALLOW_EMBEDDED_DB=true', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET })).toThrow(/DATABASE_URL/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: SECRET, ALLOW_EMBEDDED_DB: 'true' }).isProduction).toBe(true);
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
