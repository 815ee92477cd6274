import type { ActorContext } from '../tenancy/actor-context';

/**
 * Whose snapshots a read may return: the user's own, in the spaces of the actor's allowed-space
 * set (R-TN-4, R-TN-5). A snapshot of a sealed or retired space, or of one the user left, is
 * outside it and reads exactly as a missing one.
 */
export interface SnapshotScope {
  readonly userId: string;
  readonly spaceIds: readonly string[];
}

export function snapshotScopeOf(actor: ActorContext): SnapshotScope {
  return { userId: actor.userId, spaceIds: actor.allowedSpaces.map((space) => space.id) };
}

/**
 * The scope's spaces as one PostgreSQL array literal, bound to `any(?::uuid[])`: one parameter
 * however many spaces, and an empty set is a valid (empty) array. The ids are UUIDs from the
 * database, so they need no quoting.
 */
export function spaceIdsParam(scope: SnapshotScope): string {
  return `{${scope.spaceIds.join(',')}}`;
}

/** The scope predicate over aliases r (message_tool_results) and c (conversations), with its bindings. */
export const SCOPE_PREDICATE = 'r.user_id = ? and c.space_id = any(?::uuid[])';

export function scopeBindings(scope: SnapshotScope): [string, string] {
  return [scope.userId, spaceIdsParam(scope)];
}
