export type NodeEnv = 'development' | 'test' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * The validated, typed configuration. Built once at boot by `loadConfig`; the class itself is
 * the injection token, so services ask for `AppConfig` and never read `process.env`.
 */
export class AppConfig {
  readonly nodeEnv: NodeEnv;
  readonly port: number;
  readonly logLevel: LogLevel;
  readonly dataDir: string;
  readonly database: {
    /** Unset: an embedded PostgreSQL is started under `embeddedDir`. */
    readonly url?: string;
    readonly embeddedDir: string;
    readonly embeddedPort: number;
    readonly poolMax: number;
    readonly acquireTimeoutMs: number;
    readonly statementTimeoutMs: number;
  };
  readonly auth: {
    readonly jwtSecret?: string;
    readonly jwksUrl?: string;
    readonly issuer?: string;
    readonly audience?: string;
  };
  readonly http: {
    readonly bodyLimit: string;
  };
  readonly graphql: {
    readonly maxDepth: number;
    readonly maxAliases: number;
    readonly maxCost: number;
    readonly maxTokens: number;
  };
  readonly featureFlags: {
    readonly cacheTtlMs: number;
  };

  constructor(values: Omit<AppConfig, 'isProduction'>) {
    Object.assign(this, values);
  }

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}
