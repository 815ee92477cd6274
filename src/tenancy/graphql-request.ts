import type { ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { ActorContext } from './actor-context';
import type { AuthenticatedRequest } from './edge-authentication';
import type { PendingActor } from './pending-actor';

/** `pendingActor`: left by the guard for an operation that resolves its actor in its own statement. */
export type RequestWithActor = AuthenticatedRequest & { actor?: ActorContext; pendingActor?: PendingActor };

export function graphqlRequest(context: ExecutionContext): RequestWithActor {
  return GqlExecutionContext.create(context).getContext<{ req: RequestWithActor }>().req;
}
