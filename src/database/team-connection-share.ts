import type { Client as PgConnection } from 'pg';
import { KeyedSemaphore, SlotWaitTimeoutError } from '../common/concurrency/keyed-semaphore';
import { withinTimeout } from '../common/concurrency/within-timeout';
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
 * cost per connection is a Map update and a property on the connection, no timer and no round trip.
 * Returns the share, for tests and gauges to read.
 */
export function shareConnectionsByTeam(client: ConnectionSource, options: TeamConnectionShareOptions): KeyedSemaphore {
  const share = new KeyedSemaphore(options.perTeam);
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);

  /**
   * A pool connection for `teamId`, who holds a slot already; the slot is given back if none comes.
   * The pool's own promise is returned: the bookkeeping, attached first, runs before the caller
   * resumes, and adds no step to its chain.
   */
  const take = (teamId: string): Promise<PgConnection> => {
    const pending = acquire();
    pending.then(
      (connection: TeamConnection) => {
        connection[TEAM] = teamId;
      },
      () => share.release(teamId),
    );
    return pending;
  };

  client.acquireConnection = () => {
    const teamId = currentTenantScope()?.teamId;
    if (teamId === undefined) return acquire();
    const waiting = share.acquire(teamId, options.acquireTimeoutMs);
    if (waiting === undefined) return take(teamId);
    const startedAt = Date.now();
    return waiting.then(
      // What is left of the acquire timeout after the wait for the share; a connection that comes later goes straight back.
      () =>
        withinTimeout(
          take(teamId),
          Math.max(0, startedAt + options.acquireTimeoutMs - Date.now()),
          () => new TeamConnectionShareTimeoutError(options.acquireTimeoutMs),
          (late) => void client.releaseConnection(late),
        ),
      (error: unknown) => {
        throw error instanceof SlotWaitTimeoutError ? new TeamConnectionShareTimeoutError(options.acquireTimeoutMs) : error;
      },
    );
  };

  client.releaseConnection = (connection: TeamConnection) => {
    const teamId = connection[TEAM];
    if (teamId === undefined) return release(connection);
    connection[TEAM] = undefined;
    // Back to the pool first: the team's next waiter, granted its slot now, takes it from there.
    const released = release(connection);
    share.release(teamId);
    return released;
  };
  return share;
}

/** Which team's share a pooled connection counts against while it is out (a property, like knex's own `__knexTxId`). */
const TEAM = Symbol('team');
type TeamConnection = PgConnection & { [TEAM]?: string };
