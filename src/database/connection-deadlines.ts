import type { Client as PgConnection } from 'pg';
import { withinTimeout } from '../common/concurrency/within-timeout';
import { currentRequestBudget, type DatabaseTime } from '../observability/request-context';
import type { ConnectionSource } from './team-connection-share';

/**
 * The request has used up its database time (DB_TIME_PER_REQUEST_MS) before this step: the
 * statement was not sent, or no connection came within what was left.
 */
export class RequestDatabaseTimeError extends Error {
  constructor() {
    super('The request used up its database time (DB_TIME_PER_REQUEST_MS).');
    this.name = new.target.name;
  }
}

export interface ConnectionDeadlineOptions {
  /** The pool's own bound on a wait for a connection (DB_ACQUIRE_TIMEOUT_MS). */
  readonly acquireTimeoutMs: number;
  /** The database time one HTTP request may take (DB_TIME_PER_REQUEST_MS). */
  readonly timePerRequestMs: number;
}

/**
 * The deadlines the service keeps itself at the pool's edge (R-OP-6), where every connection is
 * taken and given back (runSql, the query builder, MikroORM's transactions, the readiness probe):
 *
 * - A connection given back with a statement still unanswered — its read timeout
 *   (DB_QUERY_TIMEOUT_MS, pg's `query_timeout`) passed — is closed and never handed out again. pg
 *   leaves such a connection open: the next statement would queue behind the lost one, and read its
 *   late answer.
 * - An HTTP request's database time — while it waits for or holds connections, counted once where
 *   they overlap (aliases run side by side) — is bounded: a wait for a connection ends when it runs
 *   out, and runSql cuts each statement's read timeout to what is left. Time the request spends
 *   elsewhere (token counts, rendering) does not count: only the database can be silent here.
 *
 * Cost on the common path: a property read on release and, in a request, two clock reads per
 * connection; a timer only for a wait that the request's time would end before the pool's acquire
 * timeout.
 */
export function keepConnectionDeadlines(client: ConnectionSource, options: ConnectionDeadlineOptions): void {
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);

  client.acquireConnection = () => {
    const budget = currentRequestBudget();
    if (budget === undefined) return acquire();
    const time = (budget.databaseTime ??= { limitMs: options.timePerRequestMs, usedMs: 0, open: 0, since: 0 });
    const now = Date.now();
    if (time.open++ === 0) time.since = now;
    const leftMs = databaseTimeLeft(time, now);
    const pending =
      leftMs <= 0
        ? Promise.reject(new RequestDatabaseTimeError())
        : leftMs >= options.acquireTimeoutMs
          ? acquire()
          : withinTimeout(
              acquire(),
              leftMs,
              () => new RequestDatabaseTimeError(),
              (late) => void client.releaseConnection(late),
            );
    // Attached first, so it runs before the caller resumes: the connection carries the request's
    // time until it is given back (a late one, given back unmarked, does not).
    pending.then(
      (connection: TimedConnection) => {
        connection[DATABASE_TIME] = time;
      },
      () => closeInterval(time, Date.now()),
    );
    return pending;
  };

  client.releaseConnection = (connection: TimedConnection) => {
    discardIfUnanswered(connection);
    const time = connection[DATABASE_TIME];
    if (time !== undefined) {
      connection[DATABASE_TIME] = undefined;
      closeInterval(time, Date.now());
    }
    return release(connection);
  };
}

/** Whose database time a pooled connection counts against while it is out. */
const DATABASE_TIME = Symbol('databaseTime');
type TimedConnection = PgConnection & { [DATABASE_TIME]?: DatabaseTime };

function closeInterval(time: DatabaseTime, now: number): void {
  if (--time.open === 0) time.usedMs += now - time.since;
}

/** What is left of the request's database time at `now`. */
export function databaseTimeLeft(time: DatabaseTime, now: number): number {
  return time.limitMs - time.usedMs - (time.open > 0 ? now - time.since : 0);
}

/** What the pool and pg keep on a connection that this reads (knex's disposal mark, pg's statement in flight). */
type PooledConnection = PgConnection & {
  /** Set, knex's pool destroys the connection instead of handing it out (its validate). */
  __knex__disposed?: unknown;
  _getActiveQuery(): unknown;
};

/**
 * Closes `connection` if a statement sent on it is still unanswered; true when the connection is
 * discarded (now, or by the pool before). Idempotent. With a statement in flight pg's `end()`
 * destroys the socket at once (the server, when it hears, rolls back what was open) and fails every
 * statement queued behind; the mark makes the pool destroy the connection instead of handing it
 * out, even before pg has seen the socket close.
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
 * `statement_timeout`; then it is cut to what is left of the request's database time, `leftMs`
 * (≤ 0: none is left). Undefined: the pool's default applies as it is.
 */
export function statementReadTimeout(
  pool: PoolTimeouts,
  statementTimeoutMs: number | undefined,
  leftMs: number | undefined,
): number | undefined {
  const own = statementTimeoutMs === undefined ? undefined : statementTimeoutMs + (pool.query_timeout - pool.statement_timeout);
  return leftMs === undefined ? own : Math.min(own ?? pool.query_timeout, leftMs);
}
