import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { graphqlRequest } from './graphql-request';
import type { ActorOrPending } from './pending-actor';

/**
 * Hands the request's `ActorContext` to a resolver. Throws when the auth guard never ran, so a
 * missing guard can never fall back to a wrong or empty identity.
 */
export const Actor = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const actor = graphqlRequest(context).actor;
  if (!actor) throw new Error('@Actor() used on an operation the auth guard did not resolve');
  return actor;
});

export const ACTOR_IN_STATEMENT = 'recall-ledger:actor-in-statement';

/**
 * Marks an operation whose own statement resolves the actor (one round trip instead of the
 * guard's and its own): the guard verifies the token, its scopes and the team's admission, enters
 * the tenant scope, and leaves the database read to the operation (`PendingActor`). Used on hot
 * reads only; see docs/tenancy.md for how the actor's invariants hold on this path.
 */
export const ActorInStatement = () => SetMetadata(ACTOR_IN_STATEMENT, true);

/**
 * Hands an `@ActorInStatement()` operation its caller: the actor when another operation of the
 * same request already resolved it, otherwise the `PendingActor` the guard left.
 */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): ActorOrPending => {
  const req = graphqlRequest(context);
  const caller = req.actor ?? req.pendingActor;
  if (!caller) throw new Error('@Caller() used on an operation the auth guard did not admit');
  return caller;
});
