/**
 * Which database failures a caller may retry unchanged. A transient fault is about the moment
 * (contention, a timeout, a lost or refused connection), not about the request: the same
 * statement can succeed a little later. Everything else — constraint violations, bad input,
 * missing objects, bugs — would fail again and is not transient.
 *
 * `ROLLED_BACK`: the statement certainly did not take effect (it was cancelled, chosen as a
 * deadlock victim, or never reached the server). `OUTCOME_UNKNOWN`: the session was lost while
 * the statement ran, so a write may have committed before the answer was lost.
 */
export type TransientFault = 'ROLLED_BACK' | 'OUTCOME_UNKNOWN';

const ROLLED_BACK_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available (lock_timeout, NOWAIT)
  '57014', // query_canceled (statement_timeout, a cancel request)
  '57P03', // cannot_connect_now (server starting or in recovery): refused at connect
  '53300', // too_many_connections: refused at connect
]);

const OUTCOME_UNKNOWN_SQLSTATES = new Set([
  '57P01', // admin_shutdown (pg_terminate_backend, a fast shutdown)
  '57P02', // crash_shutdown
]);

/** Node's socket errors: the connection broke or could not be made. */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** What the pg driver says when the server went away without an error message. */
const CONNECTION_LOST = /^Connection terminated\b|^Client has encountered a connection error/;

/**
 * A deadline the service keeps itself, because PostgreSQL's own timers cannot fire when the network
 * between is silent (connection-deadlines.ts):
 * - `statement`: no answer within the read timeout (DB_QUERY_TIMEOUT_MS); the connection was closed;
 * - `connect`: a new connection did not open within DB_CONNECT_TIMEOUT_MS;
 * - `pool`: no connection came free within DB_ACQUIRE_TIMEOUT_MS, in the pool or the team's share;
 * - `request`: the request used up its database time, DB_TIME_PER_REQUEST_MS.
 * And the one PostgreSQL keeps for the service while it can answer:
 * - `server`: the server cancelled the statement (SQLSTATE 57014) at DB_STATEMENT_TIMEOUT_MS (a lock
 *   held too long, a loaded server) — about the moment, not the request, so a client may retry it.
 */
export type MissedDeadline = 'statement' | 'connect' | 'pool' | 'request' | 'server';

/** query_canceled, as PostgreSQL's statement_timeout raises it. */
const QUERY_CANCELED = '57014';
/** pg's message for a `query_timeout` (knex puts the statement before it). */
const READ_TIMEOUT = /Query read timeout$/;
/** pg's message when `connectionTimeoutMillis` passed. */
const CONNECT_TIMEOUT = /^timeout expired$/;

/** Which of the service's own database deadlines `error` (or an error it wraps) reports, or null. */
export function missedDeadline(error: unknown): MissedDeadline | null {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth += 1) {
    const { name, message, code } = current as { name?: unknown; message?: unknown; code?: unknown };
    // The pool had no connection to give within its acquire timeout: nothing was sent.
    // Or none within the team's share of the pool (team-connection-share.ts), likewise before anything was sent.
    if (name === 'KnexTimeoutError' || name === 'TeamConnectionShareTimeoutError') return 'pool';
    if (name === 'RequestDatabaseTimeError') return 'request';
    if (typeof message === 'string' && READ_TIMEOUT.test(message)) return 'statement';
    if (typeof message === 'string' && CONNECT_TIMEOUT.test(message)) return 'connect';
    // query_canceled: the statement timeout, or a cancel an operator sent; the service sends none itself.
    if (code === QUERY_CANCELED) return 'server';
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** The fault class of `error` (or of the errors it wraps), or null when retrying would not help. */
export function transientFault(error: unknown): TransientFault | null {
  const missed = missedDeadline(error);
  // A statement's answer may have been lost after it committed; every other deadline ends a wait before anything was sent.
  if (missed !== null) return missed === 'statement' ? 'OUTCOME_UNKNOWN' : 'ROLLED_BACK';
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth += 1) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (ROLLED_BACK_SQLSTATES.has(code)) return 'ROLLED_BACK';
      // 08xxx connection_exception: the connection failed under the statement.
      if (OUTCOME_UNKNOWN_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'OUTCOME_UNKNOWN';
      if (SOCKET_CODES.has(code)) return code === 'ECONNREFUSED' ? 'ROLLED_BACK' : 'OUTCOME_UNKNOWN';
    }
    if (typeof message === 'string' && CONNECTION_LOST.test(message)) return 'OUTCOME_UNKNOWN';
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
