import type { Client as PgConnection } from 'pg';
import { withinTimeout } from '../common/concurrency/within-timeout';
import { currentRequestBudget } from '../observability/request-context';
import type { ConnectionSource } from './team-connection-share';

/**
 * The request's database work reached its deadline (DB_REQUEST_DEADLINE_MS, counted from its first
 * connection) before this step: the statement was not sent, or no connection came in time.
 */
export class DatabaseDeadlineError extends Error {
  constructor() {
    super("The request's database work passed its deadline (DB_REQUEST_DEADLINE_MS).");
    this.name = new.target.name;
  }
}

export interface ConnectionDeadlineOptions {
  /** The pool's own bound on a wait for a connection (DB_ACQUIRE_TIMEOUT_MS). */
  readonly acquireTimeoutMs: number;
  /** The database time one HTTP request may take from its first connection on (DB_REQUEST_DEADLINE_MS). */
  readonly requestDeadlineMs: number;
}

/**
 * The deadlines the service keeps itself at the pool's edge (R-OP-6), where every connection is
 * taken and given back (runSql, the query builder, MikroORM's transactions, the readiness probe):
 *
 * - A connection given back with a statement still unanswered — its read timeout
 *   (DB_QUERY_TIMEOUT_MS, pg's `query_timeout`) passed — is closed and never handed out again. pg
 *   leaves such a connection open: the next statement would queue behind the lost one, and read its
 *   late answer.
 * - In an HTTP request, the first connection starts the request's database deadline, and no later
 *   wait for a connection outlasts it (runSql cuts each statement's read timeout to it).
 *
 * Cost on the common path: a property read on release and, in a request, a clock read on acquire;
 * a timer only for a wait that the request's deadline would end before the pool's acquire timeout.
 */
export function keepConnectionDeadlines(client: ConnectionSource, options: ConnectionDeadlineOptions): void {
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);

  client.acquireConnection = () => {
    const budget = currentRequestBudget();
    if (budget === undefined) return acquire();
    const now = Date.now();
    const remainingMs = (budget.databaseDeadlineAt ??= now + options.requestDeadlineMs) - now;
    if (remainingMs >= options.acquireTimeoutMs) return acquire();
    if (remainingMs <= 0) return Promise.reject(new DatabaseDeadlineError());
    return withinTimeout(
      acquire(),
      remainingMs,
      () => new DatabaseDeadlineError(),
      (late) => void client.releaseConnection(late),
    );
  };

  client.releaseConnection = (connection: PgConnection) => {
    discardIfUnanswered(connection);
    return release(connection);
  };
}

/** What the pool and pg keep on a connection that this reads (knex's disposal mark, pg's statement in flight). */
type PooledConnection = PgConnection & {
  /** Set, knex's pool destroys the connection instead of handing it out (its validate). */
  __knex__disposed?: unknown;
  _getActiveQuery(): unknown;
};

/**
 * Closes `connection` if a statement sent on it is still unanswered; true when the connection is
 * discarded (now, or by the pool before). Idempotent. With a statement in flight pg's `end()` destroys the socket at once (the server,
 * when it hears, rolls back what was open), and every statement queued behind fails at once; the
 * mark makes the pool destroy it instead of handing it out, even before pg has seen the socket close.
 */
export function discardIfUnanswered(connection: PgConnection): boolean {
  const pooled = connection as PooledConnection;
  if (pooled.__knex__disposed) return true;
  if (pooled._getActiveQuery() === null) return false;
  pooled.__knex__disposed = 'a statement went unanswered past its read timeout';
  void connection.end().catch(() => undefined);
  return true;
}

/** The pool's timeouts as the connection settings carry them (orm-options.ts). */
export interface PoolTimeouts {
  /** PostgreSQL's `statement_timeout` on every connection. */
  readonly statement_timeout: number;
  /** pg's `query_timeout`: the client's own wait for an answer. */
  readonly query_timeout: number;
}

/**
 * How long runSql waits for a statement's answer (pg's `query_timeout`): a statement under a timeout
 * of its own (`timeoutMs`, a transaction's) gets that timeout plus the pool's margin over
 * `statement_timeout`; then it is cut to what is left of the request's deadline (≤ 0: the deadline
 * has passed). Undefined: the pool's default applies as it is.
 */
export function statementReadTimeout(
  pool: PoolTimeouts,
  statementTimeoutMs: number | undefined,
  deadlineAt: number | undefined,
  now: number,
): number | undefined {
  const own = statementTimeoutMs === undefined ? undefined : statementTimeoutMs + (pool.query_timeout - pool.statement_timeout);
  if (deadlineAt === undefined) return own;
  return Math.min(own ?? pool.query_timeout, deadlineAt - now);
}
