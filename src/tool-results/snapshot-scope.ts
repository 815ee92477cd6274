import { UUID_PATTERN } from '../common/uuid-pattern';
import type { ActorContext } from '../tenancy';
import type { SnapshotColumns, SnapshotSearch } from './tool-result-snapshot';

/**
 * Whose snapshots a read may return: the user's own, in the spaces of the actor's allowed-space
 * set (R-TN-4, R-TN-5). A snapshot of a sealed or retired space, or of one the user left, is
 * outside it and reads exactly as a missing one.
 */
export interface SnapshotScope {
  /** Every statement names the team: the distribution column of every key (docs/scaling.md). */
  readonly teamId: string;
  readonly userId: string;
  readonly spaceIds: readonly string[];
}

export function snapshotScopeOf(actor: ActorContext): SnapshotScope {
  return { teamId: actor.teamId, userId: actor.userId, spaceIds: actor.allowedSpaces.map((space) => space.id) };
}

/**
 * The scope's spaces as one PostgreSQL array literal, bound to a `uuid[]` parameter: one value
 * however many spaces, and an empty set is a valid (empty) array. The ids are UUIDs from the
 * database, so they need no quoting.
 */
export function spaceIdsParam(scope: SnapshotScope): string {
  return `{${scope.spaceIds.join(',')}}`;
}

/**
 * The arguments of `tool_results_recent` (current body in schema.sql) in its parameter order: the values
 * a caller binds, never SQL. Payload columns come back null unless asked for.
 */
export function recentArguments(scope: SnapshotScope, conversationId: string, limit: number, columns: SnapshotColumns): unknown[] {
  return [scope.teamId, scope.userId, spaceIdsParam(scope), conversationId, limit, columns.input === true, columns.output === true];
}

/** The arguments of `tool_results_search` (current body in schema.sql) in its parameter order. */
export function searchArguments(scope: SnapshotScope, search: SnapshotSearch, columns: SnapshotColumns): unknown[] {
  return [
    scope.teamId,
    scope.userId,
    spaceIdsParam(scope),
    search.spaceId,
    search.query,
    search.conversationId ?? null,
    search.toolName ?? null,
    search.since?.toISOString() ?? null,
    search.limit,
    columns.input === true,
    columns.output === true,
  ];
}

/**
 * The arguments of `tool_results_tool_names` (current body in schema.sql): the scope, and those of the
 * ids that can name a snapshot (UUIDs; an external retriever's ref ids may be anything), as one array.
 * Only the scope's own snapshots name a tool: a teammate's id, or a hidden one, names nothing.
 */
export function toolNamesArguments(scope: SnapshotScope, snapshotIds: readonly string[]): unknown[] {
  return [scope.teamId, scope.userId, spaceIdsParam(scope), `{${snapshotIds.filter((id) => UUID_PATTERN.test(id)).join(',')}}`];
}
