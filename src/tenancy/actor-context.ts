import type { Scope } from './scopes';

export interface AllowedSpace {
  readonly id: string;
  readonly generation: number;
}

/**
 * Who is calling, resolved once per request by the auth guard from the token and the
 * database. Services take this, never a user id from arguments.
 */
export class ActorContext {
  constructor(
    readonly userId: string,
    readonly teamId: string,
    readonly scopes: readonly Scope[],
    /** ACTIVE spaces of the team the user is a member of, at their current generation. */
    readonly allowedSpaces: readonly AllowedSpace[],
  ) {}

  hasScope(scope: Scope): boolean {
    return this.scopes.includes(scope);
  }

  /** The current generation of an allowed space, or undefined when the actor may not use it. */
  allowedGeneration(spaceId: string): number | undefined {
    return this.allowedSpaces.find((s) => s.id === spaceId)?.generation;
  }
}
