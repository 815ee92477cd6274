import { Transform } from 'class-transformer';
import { CronTime } from 'cron';
import { compile as compileTrustedProxies } from 'proxy-addr';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
};

const toInt = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return undefined;
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  return /^-?\d+$/.test(text) ? Number(value) : value;
};

/** Applies `decorators` as if stacked in this order above a property (the last one nearest it). */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorator of [...decorators].reverse()) decorator(target, key);
  };
}

// class-validator checks the decorator nearest the property first: the type check stands last so
// that "abc" is reported as "not an integer", not as out of range.
/** An optional integer variable in [min, max]. */
const IntSetting = (min: number, max: number): PropertyDecorator => stacked(IsOptional(), Transform(toInt), Min(min), Max(max), IsInt());
/** An optional boolean variable: true/false or 1/0. */
const BooleanSetting = (): PropertyDecorator => stacked(IsOptional(), Transform(toBoolean), IsBoolean());
/** An optional non-empty text variable. */
const TextSetting = (): PropertyDecorator => stacked(IsOptional(), IsString(), MinLength(1));

/** A cron expression the scheduler accepts (`0 * * * *`, or with seconds `0 0 * * * *`). */
@ValidatorConstraint({ name: 'cronExpression' })
class CronExpression implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    try {
      new CronTime(String(value));
      return true;
    } catch {
      return false;
    }
  }

  defaultMessage(): string {
    return '$property must be a cron expression such as "0 * * * *"';
  }
}

/** The proxies whose X-Forwarded-* headers count, as Express' `trust proxy` takes them (configure-app.ts). */
@ValidatorConstraint({ name: 'trustedProxies' })
class TrustedProxyList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && invalidProxyEntry(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    const entry = typeof args.value === 'string' ? invalidProxyEntry(args.value) : null;
    return (
      `TRUSTED_PROXIES: ${JSON.stringify(entry ?? args.value)} is not an IP address, a CIDR range (10.0.0.0/8) ` +
      'or one of loopback, linklocal, uniquelocal'
    );
  }
}

/** The first entry of a TRUSTED_PROXIES list Express would refuse or misread, or null. */
function invalidProxyEntry(list: string): string | null {
  for (const entry of list.split(',').map((item) => item.trim())) {
    // A bare number reads as an address to proxy-addr (1 is 0.0.0.1), never as Express' hop count.
    if (entry === '' || /^\d+$/.test(entry)) return entry;
    try {
      compileTrustedProxies(entry);
    } catch {
      return entry;
    }
  }
  return null;
}

/**
 * The environment as the process receives it. Every variable is optional here; defaults and
 * cross-variable rules live in `loadConfig`. Each field is named exactly as the variable, so a
 * validation message names the variable to fix.
 */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'test', 'production'])
  NODE_ENV?: 'development' | 'test' | 'production';

  @IntSetting(1, 65535)
  PORT?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  /** The login role request-time work runs as (R-TN-8); unset: the service provisions `recall_ledger_app` itself. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_APP_URL must be a postgres:// URL' })
  DATABASE_APP_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'DATABASE_APP_PASSWORD must be at least 16 characters' })
  DATABASE_APP_PASSWORD?: string;

  @TextSetting()
  EMBEDDED_PG_DIR?: string;

  @IntSetting(1, 65535)
  EMBEDDED_PG_PORT?: number;

  @BooleanSetting()
  ALLOW_EMBEDDED_DB?: boolean;

  @TextSetting()
  DATA_DIR?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'AUTH_JWT_SECRET must be at least 32 characters' })
  AUTH_JWT_SECRET?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['https', 'http'] })
  AUTH_JWKS_URL?: string;

  /** How long a fetched JWKS is used before it is fetched again (a token naming an unknown kid fetches it sooner). */
  @IntSetting(0, 86_400_000)
  AUTH_JWKS_CACHE_MAX_AGE_MS?: number;

  @TextSetting()
  AUTH_JWT_ISSUER?: string;

  @TextSetting()
  AUTH_JWT_AUDIENCE?: string;

  /** How long after its `iat` a token is accepted; also how long a deleted user's tombstone is kept. */
  @IntSetting(60, 31_536_000)
  AUTH_TOKEN_MAX_AGE_SECONDS?: number;

  /** Verified tokens kept (each until its exp), so a client's repeated token is not verified again; 0 verifies every request. */
  @IntSetting(0, 1_000_000)
  AUTH_TOKEN_CACHE_SIZE?: number;

  /** Where OAuth clients get tokens for this service (RFC 9728 `authorization_servers`), comma-separated URLs. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s,]+(\s*,\s*https?:\/\/[^\s,]+)*$/, {
    message: 'AUTH_AUTHORIZATION_SERVERS must be comma-separated http(s) URLs, e.g. https://auth.example.com',
  })
  AUTH_AUTHORIZATION_SERVERS?: string;

  /** The address clients reach the service at, e.g. https://recall.example.com (no path). */
  @IsOptional()
  @Matches(/^https?:\/\/[^/\s?#]+\/?$/, { message: 'PUBLIC_URL must be an http(s) origin without a path, e.g. https://recall.example.com' })
  PUBLIC_URL?: string;

  /** Host names the API answers as (DNS rebinding protection), comma-separated; `*` switches the check off. */
  @IsOptional()
  @Matches(/^(\*|[^\s,/]+(\s*,\s*[^\s,/]+)*)$/, {
    message: 'ALLOWED_HOSTS must be comma-separated host names such as recall.example.com,localhost (or *)',
  })
  ALLOWED_HOSTS?: string;

  /** Browser origins allowed to call the API besides the allowed hosts' own, comma-separated; `*` allows any. */
  @IsOptional()
  @Matches(/^(\*|https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*)$/, {
    message: 'ALLOWED_ORIGINS must be comma-separated origins such as https://app.example.com (scheme and host, no path; or *)',
  })
  ALLOWED_ORIGINS?: string;

  /** Proxies whose X-Forwarded-Proto (and -For) Express believes, comma-separated; unset: none. */
  @IsOptional()
  @IsString()
  @Validate(TrustedProxyList)
  TRUSTED_PROXIES?: string;

  @IsOptional()
  @Matches(/^\d+(b|kb|mb)$/i, { message: 'HTTP_BODY_LIMIT must look like 10mb, 512kb or 1048576b' })
  HTTP_BODY_LIMIT?: string;

  @IntSetting(0, 3_600_000)
  FEATURE_FLAG_CACHE_TTL_MS?: number;

  @IntSetting(1, 500)
  DB_POOL_MAX?: number;

  @IntSetting(100, 120_000)
  DB_ACQUIRE_TIMEOUT_MS?: number;

  @IntSetting(100, 3_600_000)
  DB_STATEMENT_TIMEOUT_MS?: number;

  /** How long the service waits for a statement's answer before it closes the connection; unset: DB_STATEMENT_TIMEOUT_MS + 1000. */
  @IntSetting(200, 3_600_000)
  DB_QUERY_TIMEOUT_MS?: number;

  /** How long opening a pool connection (TCP, TLS, login) may take. */
  @IntSetting(100, 120_000)
  DB_CONNECT_TIMEOUT_MS?: number;

  /** Idle time before TCP keepalive probes start on a pool connection. */
  @IntSetting(1000, 3_600_000)
  DB_KEEPALIVE_IDLE_MS?: number;

  /** The database time (waiting for or holding connections) one HTTP request may take; unset: DB_STATEMENT_TIMEOUT_MS + 1500. */
  @IntSetting(100, 3_600_000)
  DB_TIME_PER_REQUEST_MS?: number;

  /** Pool connections one team's statements may hold at once (R-TN-10); unset: half of DB_POOL_MAX. */
  @IntSetting(1, 500)
  TEAM_MAX_DB_CONNECTIONS?: number;

  /** Replaced by MAX_IN_FLIGHT and the admission queue (R-TN-11); set, it stops the start with a message saying so. */
  @TextSetting()
  TEAM_MAX_IN_FLIGHT?: string;

  /** HTTP requests (GraphQL and MCP, every team) one replica serves at once; more wait their team's turn (R-TN-11). */
  @IntSetting(1, 10_000)
  MAX_IN_FLIGHT?: number;

  /** HTTP requests a replica serves at once while only one team sends any (within a second): at least MAX_IN_FLIGHT. */
  @IntSetting(1, 10_000)
  MAX_IN_FLIGHT_ALONE?: number;

  /** Requests that may wait for a turn, every team together; one team at most half of them. */
  @IntSetting(0, 100_000)
  ADMISSION_QUEUE_MAX?: number;

  /** The longest a request waits for its turn before RATE_LIMITED. */
  @IntSetting(0, 600_000)
  ADMISSION_QUEUE_WAIT_MS?: number;

  /** Requests with large bodies served at once, apart from MAX_IN_FLIGHT (R-TN-10). */
  @IntSetting(1, 10_000)
  MAX_LARGE_REQUESTS_IN_FLIGHT?: number;

  /** A body of this many bytes or more makes a request large. */
  @IntSetting(1024, 1024 * 1024 * 1024)
  LARGE_REQUEST_FROM_BYTES?: number;

  /** The longest a large request waits for its turn before RATE_LIMITED. */
  @IntSetting(0, 600_000)
  LARGE_REQUEST_QUEUE_WAIT_MS?: number;

  /** The `Retry-After` of a RATE_LIMITED answer. */
  @IntSetting(1, 3600)
  RATE_LIMIT_RETRY_AFTER_SECONDS?: number;

  @IntSetting(1, 50)
  GRAPHQL_MAX_DEPTH?: number;

  @IntSetting(1, 1000)
  GRAPHQL_MAX_ALIASES?: number;

  @IntSetting(1, 1_000_000)
  GRAPHQL_MAX_COST?: number;

  @IntSetting(100, 1_000_000)
  GRAPHQL_MAX_TOKENS?: number;

  @IntSetting(1, 100_000)
  GRAPHQL_MAX_PAYLOAD_VALUES?: number;

  @IntSetting(1024, 1024 * 1024 * 1024)
  RESPONSE_MAX_PAYLOAD_BYTES?: number;

  /** Replaced by RESPONSE_MAX_PAYLOAD_BYTES (a character can take six bytes on the wire); set, it stops the start. */
  @TextSetting()
  RESPONSE_MAX_PAYLOAD_CHARS?: string;

  @IntSetting(1024, 64 * 1024 * 1024)
  TOOL_OUTPUT_MAX_BYTES?: number;

  @IntSetting(1024, 16 * 1024 * 1024)
  TOOL_INPUT_MAX_BYTES?: number;

  @IntSetting(1, 100_000)
  CONVERSATION_SNAPSHOT_CAP?: number;

  @IntSetting(1, 3650)
  TOOL_RESULT_RETENTION_DAYS?: number;

  @IntSetting(1, 50)
  RECALL_BLOCK_ROWS?: number;

  @IntSetting(50, 8000)
  RECALL_BLOCK_TOKEN_BUDGET?: number;

  @BooleanSetting()
  RECALL_INTENT_GATING?: boolean;

  @IntSetting(1000, 10_000_000)
  LOOKUP_MAX_RETURN_CHARS?: number;

  @IntSetting(100, 1_000_000)
  LOOKUP_ANSWER_MAX_TOKENS?: number;

  @IntSetting(0, 1_000_000_000)
  LOOKUP_TEXT_CACHE_CHARS?: number;

  // Deprecated names of the three above (load-config.ts DEPRECATED_SETTINGS), still read.
  @IntSetting(1000, 10_000_000)
  RECALL_MAX_RETURN_CHARS?: number;

  @IntSetting(100, 1_000_000)
  RECALL_ANSWER_MAX_TOKENS?: number;

  @IntSetting(0, 1_000_000_000)
  RECALL_TEXT_CACHE_CHARS?: number;

  @IntSetting(1, 64)
  JSON_PATH_WORKERS?: number;

  @IntSetting(0, 10_000)
  JSON_PATH_QUEUE_MAX?: number;

  @IntSetting(0, 600_000)
  JSON_PATH_QUEUE_WAIT_MS?: number;

  @IntSetting(0, 1_000)
  JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST?: number;

  @IntSetting(1, 1_000)
  JSON_PATH_DATABASE_CONCURRENCY?: number;

  @IntSetting(0, 600_000)
  SHUTDOWN_GRACE_MS?: number;

  @IntSetting(1, 64)
  TOKEN_COUNT_THREADS?: number;

  @IntSetting(0, 100_000)
  TOKEN_COUNT_QUEUE_MAX?: number;

  @IntSetting(0, 600_000)
  TOKEN_COUNT_QUEUE_WAIT_MS?: number;

  @IntSetting(1, 64)
  HANDLE_THREADS?: number;

  @IntSetting(0, 100_000)
  HANDLE_QUEUE_MAX?: number;

  @IntSetting(0, 600_000)
  HANDLE_QUEUE_WAIT_MS?: number;

  @BooleanSetting()
  RETENTION_ENABLED?: boolean;

  @BooleanSetting()
  ADMIN_CONSOLE_ENABLED?: boolean;

  @TextSetting()
  ADMIN_CONSOLE_DIR?: string;

  /** When set, `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>`. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /** New tool names one team may add as `tool_name` label values before its others count as `other`. */
  @IntSetting(0, 1000)
  METRICS_TOOL_LABELS_PER_TEAM?: number;

  @IsOptional()
  @IsString()
  @Validate(CronExpression)
  RETENTION_CRON?: string;

  @IntSetting(1, 3650)
  RECALL_EVENT_RETENTION_DAYS?: number;

  @IntSetting(1, 3650)
  FEEDBACK_EVENT_RETENTION_DAYS?: number;

  @IntSetting(1, 3650)
  FEEDBACK_COMMENT_RETENTION_DAYS?: number;

  @IntSetting(1, 100_000)
  RETENTION_BATCH_SIZE?: number;

  @IntSetting(100, 3_600_000)
  RETENTION_STATEMENT_TIMEOUT_MS?: number;

  @IntSetting(1000, 86_400_000)
  RETENTION_LEASE_MS?: number;

  @IntSetting(0, 60_000)
  RETENTION_BATCH_PAUSE_MS?: number;
}
