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
  /** Deprecated settings the environment uses, one line each saying what to rename; logged once at start. */
  readonly deprecations: readonly string[];
  readonly database: {
    /** Unset: an embedded PostgreSQL is started under `embeddedDir`. */
    readonly url?: string;
    /** The request-time login role's URL when an operator provisions it; unset: derived from `url`. */
    readonly appUrl?: string;
    /** The password the service gives its own request-time role; unset: generated under `dataDir`. */
    readonly appPassword?: string;
    readonly embeddedDir: string;
    readonly embeddedPort: number;
    readonly poolMax: number;
    readonly acquireTimeoutMs: number;
    readonly statementTimeoutMs: number;
    /**
     * How long the service waits for a statement's answer: past it the connection is closed, never
     * reused, and the request answered SERVICE_UNAVAILABLE. PostgreSQL's own timer cannot fire when
     * the network between is silent.
     */
    readonly queryTimeoutMs: number;
    /** How long opening a pool connection may take. */
    readonly connectTimeoutMs: number;
    /** Idle time before TCP keepalive probes start: a pooled connection whose peer vanished is found before it is handed out. */
    readonly keepAliveIdleMs: number;
    /** The database time one HTTP request may take: while it waits for or holds connections, overlaps counted once. */
    readonly timePerRequestMs: number;
    /** Pool connections one team's statements may hold at once; more wait for one of the team's own (R-TN-10). */
    readonly maxConnectionsPerTeam: number;
  };
  /** Fair, work-conserving admission of HTTP requests between teams on one replica (R-TN-11). */
  readonly admission: {
    /** Requests (GraphQL and MCP, every team) served at once while teams share the replica. */
    readonly maxInFlight: number;
    /** Served at once while one team alone sends requests (no other within a second): at least maxInFlight. */
    readonly maxInFlightAlone: number;
    /** Apart from those, requests with large bodies served at once. */
    readonly maxLargeInFlight: number;
    /** A body of this many bytes or more (or of unknown length) makes a request large. */
    readonly largeRequestFromBytes: number;
    /** The longest a large request waits for its turn (they take longer, so they wait longer). */
    readonly largeQueueWaitMs: number;
    /** Requests that may wait for a turn, every team together; one team at most half of them. */
    readonly queueMax: number;
    /** The longest wait for a turn; past it, or with no room to wait: RATE_LIMITED, HTTP 429. */
    readonly queueWaitMs: number;
    /** The `Retry-After` of that answer. */
    readonly retryAfterSeconds: number;
  };
  readonly auth: {
    readonly jwtSecret?: string;
    readonly jwksUrl?: string;
    /** How long a fetched JWKS is used before it is fetched again. */
    readonly jwksCacheMaxAgeMs: number;
    readonly issuer?: string;
    /** A token must name one of these in `aud` (e.g. the MCP resource identifier); unset: `aud` is not checked. */
    readonly audiences?: readonly string[];
    /** Named in the OAuth protected-resource metadata (RFC 9728) so clients know where to get a token. */
    readonly authorizationServers: readonly string[];
    /** Verified tokens kept until their `exp`, by the exact token; 0: every request verifies its token. */
    readonly tokenCacheSize: number;
    /**
     * A token is refused this long after its `iat` (which it must carry); a deleted user's
     * tombstone is kept as long, so every token issued before the deletion is refused (R-RT-4).
     */
    readonly tokenMaxAgeSeconds: number;
  };
  readonly http: {
    readonly bodyLimit: string;
    /** The address clients reach the service at (no trailing slash); unset: taken from each request. */
    readonly publicUrl?: string;
    /** Host names (lower case, no port) /graphql and /mcp answer as; `'*'`: any. */
    readonly allowedHosts: readonly string[] | '*';
    /** Browser origins allowed besides those of the allowed hosts; `'*'`: any. */
    readonly allowedOrigins: readonly string[] | '*';
    /** Proxies (addresses, CIDR ranges, loopback/linklocal/uniquelocal) whose X-Forwarded-* headers Express believes; empty: none. */
    readonly trustedProxies: readonly string[];
  };
  readonly graphql: {
    readonly maxDepth: number;
    readonly maxAliases: number;
    readonly maxCost: number;
    readonly maxTokens: number;
    /** Payload values (toolInput/toolOutput × list sizes) one operation may select, checked before it runs. */
    readonly maxPayloadValues: number;
  };
  readonly featureFlags: {
    readonly cacheTtlMs: number;
  };
  readonly toolResults: {
    /** Largest accepted tool output, serialized as JSON, in bytes (R-TR-5). */
    readonly maxOutputBytes: number;
    readonly maxInputBytes: number;
    /** Snapshots kept per conversation; older ones are deleted on insert (R-TR-3). */
    readonly conversationCap: number;
    readonly retentionDays: number;
    /** Payload bytes on the wire one HTTP request may carry (and whole payloads its reads and lookups may load), reserved as they are read. */
    readonly responseMaxPayloadBytes: number;
  };
  /** The Recall module: the "Previously fetched" block. */
  readonly recall: {
    /** K: how many recent snapshots the block is built from (R-RC-1). */
    readonly blockRows: number;
    /** The whole block's token budget (R-RC-2). */
    readonly blockTokenBudget: number;
    /** Inject the block only when the user message looks like recall (R-RC-5). */
    readonly intentGating: boolean;
  };
  /** Lookup by mem id (`recallToolResult`, `recall_tool_result`): its answers and stubs. */
  readonly lookup: {
    /** Absolute ceiling, in characters, on one lookup answer window (R-LG-2). */
    readonly maxReturnChars: number;
    /** Token bound of every lookup answer, marker included (R-LG-2); stubs name it. */
    readonly answerMaxTokens: number;
    /** Characters of served payload text (and its token counts) kept in memory for walks over one payload; 0: none. */
    readonly textCacheChars: number;
    /** JSONPath the library evaluates (what PostgreSQL cannot): a bounded pool of worker threads (R-TN-10). */
    readonly library: {
      /** Worker threads: evaluations that run at once. */
      readonly workers: number;
      /** Evaluations that may wait for a thread; past it the busy answer. */
      readonly queueMax: number;
      /** Longest wait for a thread before the busy answer. */
      readonly queueWaitMs: number;
      /** Library evaluations one HTTP request may start (GraphQL aliases, an MCP batch). */
      readonly evaluationsPerRequest: number;
      /** Node lists PostgreSQL evaluates at once from this replica, every team together (they share its queue bounds). */
      readonly databaseConcurrency: number;
    };
  };

  readonly adminConsole: {
    /** The read-only web console at /admin (its page and scripts; the API keeps its own scopes). */
    readonly enabled: boolean;
    /** Where `npm run build` put the console's files. */
    readonly dir: string;
  };
  readonly metrics: {
    /** `/metrics` answers only this bearer token; unset: it is open. */
    readonly token?: string;
    /** New `tool_name` label values one team may admit (the overall limit of 100 still holds). */
    readonly toolLabelsPerTeam: number;
  };

  /** On SIGTERM, how long in-flight requests (and a running sweep's batch) may take before the process exits anyway. */
  readonly shutdownGraceMs: number;

  /** Worker threads for CPU-heavy per-request work, off the event loop (R-TN-10). */
  readonly workers: {
    /** Threads counting the tokens of large payloads and histories. */
    readonly tokenCountThreads: number;
    /** Counting tasks that may wait for a thread; more are answered RATE_LIMITED. */
    readonly tokenCountQueue: number;
    /** Longest a counting task waits for its team's turn on a thread before RATE_LIMITED. */
    readonly tokenCountQueueWaitMs: number;
    /** Threads reading the handle fields (summary, schema hint, preview) of large payloads. */
    readonly handleThreads: number;
    /** Handle tasks that may wait for a thread; more are answered RATE_LIMITED. */
    readonly handleQueue: number;
    /** Longest a handle task waits for its team's turn on a thread before RATE_LIMITED. */
    readonly handleQueueWaitMs: number;
  };
  readonly retention: {
    /** The scheduled sweep runs (an admin's runRetentionSweep works either way). */
    readonly enabled: boolean;
    readonly cron: string;
    /** Snapshots, compacted ones too (R-RT-1). */
    readonly toolResultDays: number;
    /** Recall events without feedback on them (R-RT-3). */
    readonly recallEventDays: number;
    readonly feedbackEventDays: number;
    /** Feedback comment text is cleared after this; the event stays. */
    readonly feedbackCommentDays: number;
    /** Rows a statement deletes, each batch its own short transaction. */
    readonly batchSize: number;
    readonly statementTimeoutMs: number;
    /** How long the sweep lease is held without renewal before another replica may take it. */
    readonly leaseMs: number;
    /** Pause between two batches of a sweep, so foreground writes are not queued behind one delete after another. */
    readonly batchPauseMs: number;
  };

  constructor(values: Omit<AppConfig, 'isProduction'>) {
    Object.assign(this, values);
  }

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}
