import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { formatHost, type HostAndPort, parseHost } from './host-header';
import { AppConfig } from './app-config';
import { EnvironmentVariables } from './environment.schema';
import { DEFAULT_ANSWER_MAX_TOKENS, DEFAULT_BLOCK_ROWS, DEFAULT_BLOCK_TOKEN_BUDGET } from './setting-defaults';

/** Between sweep batches: room for the foreground writers on the same database. */
const DEFAULT_RETENTION_BATCH_PAUSE_MS = 0;
/** Snapshots are kept this long; a write dated before the window is refused (R-TR-*, R-RT-1). */
const DEFAULT_TOOL_RESULT_RETENTION_DAYS = 180;

/** Thirty days: longer than access tokens live, short enough to keep few tombstones of deleted users. */
const DEFAULT_TOKEN_MAX_AGE_SECONDS = 30 * 86_400;

export class ConfigError extends Error {}

/** Requests served at once by a replica: enough to keep its event loop and the database busy, few enough that each gets its turn soon. */
const DEFAULT_MAX_IN_FLIGHT = 2;
/** With one team alone, its requests mostly wait on database round trips: more at once keep both busy. */
const DEFAULT_MAX_IN_FLIGHT_ALONE = 16;

/** One core stays the event loop's; at most four threads, as a replica rarely has more to spare. */
function defaultWorkerThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

type Env = Record<string, string | undefined>;

/**
 * Settings renamed, by their old name: the old one is still read (the new one wins when both are
 * set), and the start-up log says once to rename it. Lookup's settings were named for recall
 * before lookup and recall were told apart.
 */
const DEPRECATED_SETTINGS: Readonly<Record<string, string>> = {
  RECALL_MAX_RETURN_CHARS: 'LOOKUP_MAX_RETURN_CHARS',
  RECALL_ANSWER_MAX_TOKENS: 'LOOKUP_ANSWER_MAX_TOKENS',
  RECALL_TEXT_CACHE_CHARS: 'LOOKUP_TEXT_CACHE_CHARS',
};

/** One line per deprecated setting `env` uses, saying what to rename it to. */
function deprecationsOf(env: Env): string[] {
  return Object.entries(DEPRECATED_SETTINGS)
    .filter(([old]) => env[old] !== undefined)
    .map(([old, renamed]) =>
      env[renamed] === undefined
        ? `${old} is deprecated: rename it ${renamed} (it is read as ${renamed} until then).`
        : `${old} is deprecated and ignored: ${renamed} is set too; remove ${old}.`,
    );
}

/**
 * Parses and validates the environment once. Throws `ConfigError` naming every variable that
 * is malformed, and refuses production set-ups that would be unsafe.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const vars = plainToInstance(EnvironmentVariables, env, { excludeExtraneousValues: false });
  const errors = validateSync(vars, { forbidUnknownValues: false, stopAtFirstError: true });
  if (errors.length > 0) {
    const lines = errors.flatMap((e) => Object.values(e.constraints ?? { invalid: `${e.property} is invalid` }));
    throw new ConfigError(`Invalid configuration:\n  - ${lines.join('\n  - ')}`);
  }

  const nodeEnv = vars.NODE_ENV ?? 'development';
  const dataDir = resolve(vars.DATA_DIR ?? '.data');
  const production = nodeEnv === 'production';

  if (production && !vars.AUTH_JWT_SECRET && !vars.AUTH_JWKS_URL) {
    throw new ConfigError('NODE_ENV=production needs AUTH_JWT_SECRET or AUTH_JWKS_URL to verify tokens; set one of them.');
  }
  if (production && vars.AUTH_JWKS_URL && (!vars.AUTH_JWT_ISSUER || !vars.AUTH_JWT_AUDIENCE)) {
    // Teams and users come into being on their first valid token: without both checks, a key set
    // shared with other services would let those services' tokens in.
    const missing = [!vars.AUTH_JWT_ISSUER && 'AUTH_JWT_ISSUER', !vars.AUTH_JWT_AUDIENCE && 'AUTH_JWT_AUDIENCE'].filter(Boolean);
    throw new ConfigError(
      `NODE_ENV=production with AUTH_JWKS_URL needs AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE (missing: ${missing.join(', ')}), ` +
        "so that only tokens issued for this service are taken: the key set's other tokens would create teams and users here.",
    );
  }
  if (production && vars.DATABASE_URL && !vars.DATABASE_APP_URL && !vars.DATABASE_APP_PASSWORD) {
    // A password generated per machine would differ between replicas, each resetting the role's.
    throw new ConfigError(
      'NODE_ENV=production with DATABASE_URL needs DATABASE_APP_PASSWORD (the password the service gives its request role ' +
        'recall_ledger_app, the same on every replica) or DATABASE_APP_URL (a login role you provisioned for requests).',
    );
  }
  if (production && !vars.DATABASE_URL && !vars.ALLOW_EMBEDDED_DB) {
    throw new ConfigError('NODE_ENV=production needs DATABASE_URL (or ALLOW_EMBEDDED_DB=true to run on the embedded PostgreSQL).');
  }
  if (production && !vars.PUBLIC_URL && !vars.ALLOWED_HOSTS) {
    // Localhost is no default for a deployed service, and answering any Host invites DNS rebinding.
    throw new ConfigError(
      'NODE_ENV=production needs PUBLIC_URL (the address clients use, e.g. https://recall.example.com) or ALLOWED_HOSTS ' +
        '(the host names the API answers as); set one of them.',
    );
  }
  if (production && !vars.PUBLIC_URL && vars.ALLOWED_HOSTS?.trim() === '*') {
    throw new ConfigError(
      'NODE_ENV=production with ALLOWED_HOSTS=* needs PUBLIC_URL (e.g. https://recall.example.com): the OAuth metadata would ' +
        'otherwise name whatever Host a request carries; set PUBLIC_URL or list the host names in ALLOWED_HOSTS.',
    );
  }

  const poolMax = vars.DB_POOL_MAX ?? 20;
  const maxInFlight = vars.MAX_IN_FLIGHT ?? DEFAULT_MAX_IN_FLIGHT;
  if (vars.TEAM_MAX_DB_CONNECTIONS !== undefined && vars.TEAM_MAX_DB_CONNECTIONS > poolMax) {
    throw new ConfigError(
      `TEAM_MAX_DB_CONNECTIONS (${vars.TEAM_MAX_DB_CONNECTIONS}) is over DB_POOL_MAX (${poolMax}): a team's share is part of the pool; ` +
        'lower it or raise DB_POOL_MAX.',
    );
  }

  if (vars.TEAM_MAX_IN_FLIGHT !== undefined) {
    // A per-team cap refused a team's requests even on an idle replica; admission now shares it instead.
    throw new ConfigError(
      'TEAM_MAX_IN_FLIGHT is gone: a replica now serves MAX_IN_FLIGHT requests of all teams at once and shares them fairly ' +
        'between the teams that want them (ADMISSION_QUEUE_MAX, ADMISSION_QUEUE_WAIT_MS); remove it (docs/configuration.md).',
    );
  }

  if (vars.RESPONSE_MAX_PAYLOAD_CHARS !== undefined) {
    throw new ConfigError(
      'RESPONSE_MAX_PAYLOAD_CHARS is gone: the response budget counts bytes on the wire (a character can take six); ' +
        'set RESPONSE_MAX_PAYLOAD_BYTES instead (docs/configuration.md).',
    );
  }

  const statementTimeoutMs = vars.DB_STATEMENT_TIMEOUT_MS ?? 15000;
  // A second past PostgreSQL's own timer: while the server answers, its cancel (57014) comes first.
  const queryTimeoutMs = vars.DB_QUERY_TIMEOUT_MS ?? statementTimeoutMs + 1000;
  if (queryTimeoutMs <= statementTimeoutMs) {
    throw new ConfigError(
      `DB_QUERY_TIMEOUT_MS (${queryTimeoutMs}) must be over DB_STATEMENT_TIMEOUT_MS (${statementTimeoutMs}): the service would close ` +
        'connections under statements PostgreSQL still lets run; leave it unset (the statement timeout + 1000) or raise it.',
    );
  }

  const publicUrl = vars.PUBLIC_URL === undefined ? undefined : parsedPublicUrl(vars.PUBLIC_URL);
  return new AppConfig({
    nodeEnv,
    deprecations: deprecationsOf(env),
    port: vars.PORT ?? 3000,
    logLevel: vars.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    dataDir,
    database: {
      url: vars.DATABASE_URL,
      appUrl: vars.DATABASE_APP_URL,
      appPassword: vars.DATABASE_APP_PASSWORD,
      embeddedDir: resolve(vars.EMBEDDED_PG_DIR ?? join(dataDir, 'pg')),
      embeddedPort: vars.EMBEDDED_PG_PORT ?? 54329,
      poolMax,
      acquireTimeoutMs: vars.DB_ACQUIRE_TIMEOUT_MS ?? 5000,
      statementTimeoutMs,
      queryTimeoutMs,
      connectTimeoutMs: vars.DB_CONNECT_TIMEOUT_MS ?? 5000,
      keepAliveIdleMs: vars.DB_KEEPALIVE_IDLE_MS ?? 10_000,
      // Room for one statement at its read timeout and the request's other, quick ones, with the
      // answer out within the statement timeout + 2 s.
      timePerRequestMs: vars.DB_TIME_PER_REQUEST_MS ?? statementTimeoutMs + 1500,
      // Half the pool: one team's burst leaves the other half to everyone else.
      maxConnectionsPerTeam: vars.TEAM_MAX_DB_CONNECTIONS ?? Math.max(1, Math.floor(poolMax / 2)),
    },
    admission: {
      maxInFlight,
      maxInFlightAlone: Math.max(maxInFlight, vars.MAX_IN_FLIGHT_ALONE ?? DEFAULT_MAX_IN_FLIGHT_ALONE),
      maxLargeInFlight: vars.MAX_LARGE_REQUESTS_IN_FLIGHT ?? 1,
      largeRequestFromBytes: vars.LARGE_REQUEST_FROM_BYTES ?? 1024 * 1024,
      largeQueueWaitMs: vars.LARGE_REQUEST_QUEUE_WAIT_MS ?? 30_000,
      queueMax: vars.ADMISSION_QUEUE_MAX ?? 256,
      queueWaitMs: vars.ADMISSION_QUEUE_WAIT_MS ?? 5_000,
      retryAfterSeconds: vars.RATE_LIMIT_RETRY_AFTER_SECONDS ?? 1,
    },
    auth: {
      jwtSecret: vars.AUTH_JWT_SECRET ?? (vars.AUTH_JWKS_URL ? undefined : developmentSecret(dataDir)),
      jwksUrl: vars.AUTH_JWKS_URL,
      jwksCacheMaxAgeMs: vars.AUTH_JWKS_CACHE_MAX_AGE_MS ?? 600_000,
      issuer: vars.AUTH_JWT_ISSUER,
      audiences: vars.AUTH_JWT_AUDIENCE ? commaList(vars.AUTH_JWT_AUDIENCE) : undefined,
      authorizationServers: authorizationServers(vars.AUTH_AUTHORIZATION_SERVERS, vars.AUTH_JWT_ISSUER),
      tokenCacheSize: vars.AUTH_TOKEN_CACHE_SIZE ?? 10_000,
      tokenMaxAgeSeconds: vars.AUTH_TOKEN_MAX_AGE_SECONDS ?? DEFAULT_TOKEN_MAX_AGE_SECONDS,
    },
    http: {
      bodyLimit: vars.HTTP_BODY_LIMIT ?? '10mb',
      publicUrl: publicUrl && `${publicUrl.scheme}://${formatHost(publicUrl.host, publicUrl.scheme)}`,
      allowedHosts: allowedHosts(vars.ALLOWED_HOSTS, publicUrl?.host, production),
      allowedOrigins: allowedOrigins(vars.ALLOWED_ORIGINS),
      trustedProxies: commaList(vars.TRUSTED_PROXIES ?? ''),
    },
    graphql: {
      maxDepth: vars.GRAPHQL_MAX_DEPTH ?? 10,
      maxAliases: vars.GRAPHQL_MAX_ALIASES ?? 15,
      maxCost: vars.GRAPHQL_MAX_COST ?? 5000,
      maxTokens: vars.GRAPHQL_MAX_TOKENS ?? 10000,
      maxPayloadValues: vars.GRAPHQL_MAX_PAYLOAD_VALUES ?? 200,
    },
    featureFlags: { cacheTtlMs: vars.FEATURE_FLAG_CACHE_TTL_MS ?? 5000 },
    toolResults: {
      maxOutputBytes: vars.TOOL_OUTPUT_MAX_BYTES ?? 2 * 1024 * 1024,
      maxInputBytes: vars.TOOL_INPUT_MAX_BYTES ?? 256 * 1024,
      conversationCap: vars.CONVERSATION_SNAPSHOT_CAP ?? 200,
      responseMaxPayloadBytes: vars.RESPONSE_MAX_PAYLOAD_BYTES ?? 16 * 1024 * 1024,
      retentionDays: vars.TOOL_RESULT_RETENTION_DAYS ?? DEFAULT_TOOL_RESULT_RETENTION_DAYS,
    },
    recall: {
      blockRows: vars.RECALL_BLOCK_ROWS ?? DEFAULT_BLOCK_ROWS,
      blockTokenBudget: vars.RECALL_BLOCK_TOKEN_BUDGET ?? DEFAULT_BLOCK_TOKEN_BUDGET,
      intentGating: vars.RECALL_INTENT_GATING ?? false,
    },
    lookup: {
      maxReturnChars: vars.LOOKUP_MAX_RETURN_CHARS ?? vars.RECALL_MAX_RETURN_CHARS ?? 500_000,
      answerMaxTokens: vars.LOOKUP_ANSWER_MAX_TOKENS ?? vars.RECALL_ANSWER_MAX_TOKENS ?? DEFAULT_ANSWER_MAX_TOKENS,
      textCacheChars: vars.LOOKUP_TEXT_CACHE_CHARS ?? vars.RECALL_TEXT_CACHE_CHARS ?? 8_000_000,
      library: {
        // One core stays with the event loop; more than four threads only queue on the database.
        workers: vars.JSON_PATH_WORKERS ?? defaultWorkerThreads(),
        queueMax: vars.JSON_PATH_QUEUE_MAX ?? 16,
        queueWaitMs: vars.JSON_PATH_QUEUE_WAIT_MS ?? 2_000,
        evaluationsPerRequest: vars.JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST ?? 8,
        databaseConcurrency: vars.JSON_PATH_DATABASE_CONCURRENCY ?? 2,
      },
    },
    adminConsole: {
      enabled: vars.ADMIN_CONSOLE_ENABLED ?? true,
      dir: resolve(vars.ADMIN_CONSOLE_DIR ?? join('dist', 'admin-console')),
    },
    metrics: {
      token: vars.METRICS_TOKEN,
      toolLabelsPerTeam: vars.METRICS_TOOL_LABELS_PER_TEAM ?? 20,
    },
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS ?? 10_000,
    workers: {
      tokenCountThreads: vars.TOKEN_COUNT_THREADS ?? defaultWorkerThreads(),
      tokenCountQueue: vars.TOKEN_COUNT_QUEUE_MAX ?? 64,
      tokenCountQueueWaitMs: vars.TOKEN_COUNT_QUEUE_WAIT_MS ?? 5_000,
      handleThreads: vars.HANDLE_THREADS ?? defaultWorkerThreads(),
      handleQueue: vars.HANDLE_QUEUE_MAX ?? 64,
      handleQueueWaitMs: vars.HANDLE_QUEUE_WAIT_MS ?? 5_000,
    },
    retention: {
      enabled: vars.RETENTION_ENABLED ?? true,
      cron: vars.RETENTION_CRON ?? '0 * * * *',
      toolResultDays: vars.TOOL_RESULT_RETENTION_DAYS ?? DEFAULT_TOOL_RESULT_RETENTION_DAYS,
      recallEventDays: vars.RECALL_EVENT_RETENTION_DAYS ?? 90,
      feedbackEventDays: vars.FEEDBACK_EVENT_RETENTION_DAYS ?? 365,
      feedbackCommentDays: vars.FEEDBACK_COMMENT_RETENTION_DAYS ?? 90,
      batchSize: vars.RETENTION_BATCH_SIZE ?? 5000,
      statementTimeoutMs: vars.RETENTION_STATEMENT_TIMEOUT_MS ?? 30_000,
      leaseMs: vars.RETENTION_LEASE_MS ?? 600_000,
      batchPauseMs: vars.RETENTION_BATCH_PAUSE_MS ?? DEFAULT_RETENTION_BATCH_PAUSE_MS,
    },
  });
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The loopback names a local client uses, on any port. */
const LOCALHOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The host names /graphql and /mcp answer as (a port is ignored: proxies and browsers vary it):
 * PUBLIC_URL's host, and ALLOWED_HOSTS — or, when that is unset outside production, the loopback names.
 * Read with the Host header's own parser, so an entry means what a request's Host would.
 */
function allowedHosts(list: string | undefined, own: HostAndPort | undefined, production: boolean): readonly string[] | '*' {
  if (list?.trim() === '*') return '*';
  const listed = list ? commaList(list).map((entry) => hostEntry('ALLOWED_HOSTS', entry).hostname) : [];
  const defaults = list || production ? [] : LOCALHOST_NAMES;
  return [...new Set([...(own ? [own.hostname] : []), ...listed, ...defaults])];
}

/** PUBLIC_URL (the schema has checked `http(s)://authority[/]`), its host read as a Host header would be. */
function parsedPublicUrl(value: string): { scheme: 'http' | 'https'; host: HostAndPort } {
  const [, scheme, authority] = /^(https?):\/\/(.*?)\/?$/iu.exec(value) ?? [];
  return { scheme: scheme.toLowerCase() as 'http' | 'https', host: hostEntry('PUBLIC_URL', authority) };
}

function hostEntry(variable: string, value: string): HostAndPort {
  const host = parseHost(value);
  if (host) return host;
  throw new ConfigError(
    `${variable}: "${value}" is not a host name with an optional port (letters, digits, "-", "_" and "."; ` +
      'an IPv4 address; or an IPv6 address in brackets; an internationalized name in its xn-- form).',
  );
}

function allowedOrigins(list: string | undefined): readonly string[] | '*' {
  if (list?.trim() === '*') return '*';
  return commaList(list ?? '').map((entry) => parsedUrl('ALLOWED_ORIGINS', entry).origin);
}

function parsedUrl(variable: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(`${variable}: "${value}" cannot be read as a URL or host name.`);
  }
}

/** AUTH_AUTHORIZATION_SERVERS, or else the token issuer when it is a URL (an issuer is an authorization server's identifier). */
function authorizationServers(list: string | undefined, issuer: string | undefined): string[] {
  if (list) return commaList(list);
  return issuer && /^https?:\/\//u.test(issuer) ? [issuer] : [];
}

/** Development only: a random HS256 secret created on first use and kept under the data dir. */
function developmentSecret(dataDir: string): string {
  return secretFile(dataDir, 'dev-jwt-secret');
}

/**
 * A random secret created on first use and kept in `name` under the data dir (0600). A file found
 * there (or just made: a file system may ignore the mode) must be a regular file of the service's
 * own user that no one else may read or write; a link could point anywhere.
 */
export function secretFile(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (!lstatSync(file, { throwIfNoEntry: false })) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readSecretFile(file);
}

/** Reads a secret file after checking what it is; a refusal is one line naming the file and the fix. */
function readSecretFile(file: string): string {
  const link = `The secret file ${file} is a symbolic link; replace it with the file itself (a regular file, mode 0600).`;
  const notFile = `The secret file ${file} is not a regular file; remove it and start again to have one made.`;
  const found = lstatSync(file);
  if (found.isSymbolicLink()) throw new ConfigError(link);
  if (!found.isFile()) throw new ConfigError(notFile);
  let fd: number;
  try {
    // O_NOFOLLOW: a link put in its place since the check above is refused by the open itself.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new ConfigError(link);
    throw error;
  }
  try {
    // What was opened is checked, not the name: it may have been replaced since the lstat.
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigError(notFile);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw new ConfigError(
        `The secret file ${file} belongs to uid ${stat.uid}, not to the service's user (uid ${uid}); run chown ${uid} ${file}, ` +
          'or start the service as its owner.',
      );
    }
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
      throw new ConfigError(`The secret file ${file} may be read or written by group or others (mode ${mode}); run chmod 600 ${file}.`);
    }
    return readFileSync(fd, 'utf8').trim();
  } finally {
    closeSync(fd);
  }
}
