import { type MissedDeadline, missedDeadline } from './transient-fault';
import { ServiceUnavailableError } from '../common/errors/app-error';

/** A failure that reached a client edge (GraphQL, MCP), coded when it is a database deadline the service kept itself. */
export interface DatabaseUnavailable {
  readonly error: ServiceUnavailableError;
  /** Which deadline, for the log line (a bounded set: never the driver's message, which may quote the statement). */
  readonly missed: MissedDeadline;
}

/** `error` as SERVICE_UNAVAILABLE when the database did not answer within one of the service's deadlines; else null. */
export function databaseUnavailable(error: unknown): DatabaseUnavailable | null {
  const missed = missedDeadline(error);
  return missed === null ? null : { error: new ServiceUnavailableError(), missed };
}
