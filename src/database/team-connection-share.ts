import type { Client as PgConnection } from 'pg';
import { KeyedSemaphore, SlotWaitTimeoutError } from '../common/concurrency/keyed-semaphore';
import { currentTenantScope } from './tenant-scope';

/** The part of a knex client every statement goes through: runSql, the query builder and MikroORM's transactions. */
export interface ConnectionSource {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/**
 * A team's statement waited the whole acquire timeout for a connection: for one of the team's own
 * (it held its whole share), then for the pool. Nothing was sent: the request may be retried as it is.
 */
export class TeamConnectionShareTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`No database connection came free within ${timeoutMs} ms for a team at its share (TEAM_MAX_DB_CONNECTIONS).`);
    this.name = new.target.name;
  }
}

export interface TeamConnectionShareOptions {
  /** Pool connections one team may hold at once (TEAM_MAX_DB_CONNECTIONS). */
  readonly perTeam: number;
  /** The pool's acquire timeout (DB_ACQUIRE_TIMEOUT_MS): the bound on the whole wait, share and pool together. */
  readonly acquireTimeoutMs: number;
}

/**
 * Bounds each team's share of the connection pool (R-TN-10), at the one place connections are
 * taken: the knex client's acquire and release, which runSql, the query builder and MikroORM's
 * transactions all call (a transaction takes one connection for its whole life). The team is the
 * tenant scope's; work outside any scope (migrations, the actor's own lookup is inside one) is not
 * counted. A team at its share waits, FIFO, for one of its own connections, never another team's,
 * and no longer than the pool's acquire timeout in all. On the common path (share not full) the
 * cost per connection is a Map update and a WeakMap entry, no timer and no extra round trip.
 * Returns the share, for tests and gauges to read.
 */
export function shareConnectionsByTeam(client: ConnectionSource, options: TeamConnectionShareOptions): KeyedSemaphore {
  const share = new KeyedSemaphore(options.perTeam);
  const teamOf = new WeakMap<PgConnection, string>();
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);

  /** A pool connection for `teamId`, who holds a slot already; the slot is given back if none comes. */
  const take = (teamId: string): Promise<PgConnection> =>
    acquire().then(
      (connection) => {
        teamOf.set(connection, teamId);
        return connection;
      },
      (error: unknown) => {
        share.release(teamId);
        throw error;
      },
    );

  client.acquireConnection = () => {
    const teamId = currentTenantScope()?.teamId;
    if (teamId === undefined) return acquire();
    const startedAt = Date.now();
    const waiting = share.acquire(teamId, options.acquireTimeoutMs);
    if (waiting === undefined) return take(teamId);
    return waiting.then(
      () => withinDeadline(take(teamId), startedAt, options.acquireTimeoutMs, (late) => void client.releaseConnection(late)),
      (error: unknown) => {
        throw error instanceof SlotWaitTimeoutError ? new TeamConnectionShareTimeoutError(options.acquireTimeoutMs) : error;
      },
    );
  };

  client.releaseConnection = (connection: PgConnection) => {
    const teamId = teamOf.get(connection);
    if (teamId !== undefined) {
      teamOf.delete(connection);
      // Back to the pool first: the team's next waiter, granted its slot now, takes it from there.
      const released = release(connection);
      share.release(teamId);
      return released;
    }
    return release(connection);
  };
  return share;
}

/**
 * The connection, if the pool gives it within what is left of the acquire timeout (after waiting for
 * the share); else a timeout error, and a connection that comes later goes straight back.
 */
function withinDeadline(
  pending: Promise<PgConnection>,
  startedAt: number,
  timeoutMs: number,
  giveBack: (connection: PgConnection) => void,
): Promise<PgConnection> {
  const remainingMs = Math.max(0, startedAt + timeoutMs - Date.now());
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new TeamConnectionShareTimeoutError(timeoutMs));
    }, remainingMs);
    pending.then(
      (connection) => {
        clearTimeout(timer);
        if (timedOut) giveBack(connection);
        else resolve(connection);
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
