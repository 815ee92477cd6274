import { UnauthenticatedError } from '../common/errors/app-error';
import { ActorContext, type AllowedSpace } from './actor-context';
import type { VerifiedClaims } from './token-verifier';

/** SQLSTATE `actor_spaces` raises for a token issued before its user's deletion. */
export const TOKEN_OLDER_THAN_DELETION = 'RL004';

/** What a request with a token older than its user's deletion is answered (R-RT-4). */
export function tokenOlderThanDeletion(): UnauthenticatedError {
  return new UnauthenticatedError("The token was issued before its user's data was deleted; get a new token.");
}

/** The refusal for RL004, or the error as it came. */
export function asActorError(error: unknown): unknown {
  return (error as { code?: string }).code === TOKEN_OLDER_THAN_DELETION ? tokenOlderThanDeletion() : error;
}

/**
 * The caller of an operation that resolves its actor in its own statement (`@ActorInStatement()`):
 * the verified token's user, team and scopes, with the tenant scope already entered, but not yet
 * read from the database. The operation's statement reads the user and its allowed spaces with
 * `actor_spaces` (the guard's statement) and the operation makes its actor from them with
 * `settle`; when the statement finds no such user yet, `resolve` provisions and reads it the way
 * the guard does. Either way the actor is the database's on this request (docs/tenancy.md).
 */
export class PendingActor {
  private settled: ActorContext | null = null;
  private resolving: Promise<ActorContext> | null = null;

  constructor(
    readonly claims: VerifiedClaims,
    private readonly resolveWithGuard: (claims: VerifiedClaims) => Promise<ActorContext>,
    private readonly onSettled: (actor: ActorContext) => void,
  ) {}

  get userId(): string {
    return this.claims.userId;
  }

  get teamId(): string {
    return this.claims.teamId;
  }

  /** The actor of the allowed spaces the operation's statement read through `actor_spaces`. */
  settle(allowedSpaces: readonly AllowedSpace[]): ActorContext {
    this.settled ??= new ActorContext(this.claims.userId, this.claims.teamId, this.claims.scopes, allowedSpaces);
    this.onSettled(this.settled);
    return this.settled;
  }

  /**
   * The actor as the guard resolves it (provisioning a new user), for when the statement could not.
   * Read once for the request: the operations that ask at the same time (aliases) share the one read
   * and go on in the order they asked, so their whole-payload reads take turns in document order.
   */
  resolve(): Promise<ActorContext> {
    if (this.settled) return Promise.resolve(this.settled);
    this.resolving ??= this.resolveWithGuard(this.claims).then((actor) => {
      this.settled ??= actor;
      this.onSettled(this.settled);
      return this.settled;
    });
    return this.resolving;
  }
}

/**
 * What a statement that reads its own actor adds to each row: 'new' (no such user yet: nothing was
 * read), 'missing' (nothing of the user's in an allowed space) or 'ok', and the allowed spaces
 * with their generations, as two arrays in the same order.
 */
export interface ActorColumns {
  actor_status: 'new' | 'missing' | 'ok';
  actor_space_ids: string[];
  actor_generations: number[];
}

/** The allowed spaces such a row carries. */
export function allowedSpacesOf(row: ActorColumns): AllowedSpace[] {
  return row.actor_space_ids.map((id, index) => ({ id, generation: row.actor_generations[index] }));
}

/** An operation's caller: resolved by the guard, or still to be read by the operation's statement. */
export type ActorOrPending = ActorContext | PendingActor;

/** The caller's actor: as the guard resolved it, or read now the guard's way. */
export function actorOf(caller: ActorOrPending): Promise<ActorContext> {
  return caller instanceof PendingActor ? caller.resolve() : Promise.resolve(caller);
}
