import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError } from '../common/errors/app-error';
import { annotateSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import { ACTOR_IN_STATEMENT } from './actor.decorator';
import { ActorService } from './actor.service';
import { edgeClaims } from './edge-authentication';
import { graphqlRequest } from './graphql-request';
import { REQUIRED_SCOPES } from './requires-scope.decorator';
import type { Scope } from './scopes';

/**
 * Guards every GraphQL operation. Invariant: an operation runs only with a token the edge verified
 * (and admitted: `authenticateBeforeBody`, before the body was read), every scope it declares, and
 * an `ActorContext` built from the database for this request. Operations that declare nothing are
 * refused. The actor is resolved once per request (`PendingActor.resolve`) and shared by the other
 * operations of the same document, aliases running side by side included. An operation marked
 * `@ActorInStatement()` reads the actor in its own statement instead (`PendingActor`).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly actors: ActorService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType<string>() !== 'graphql') return true;
    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]);
    if (!required) throw new ForbiddenError('This operation declares no scope and is closed.');

    const req = graphqlRequest(context);
    if (!req.actor) {
      const claims = edgeClaims(req);
      const missing = required.filter((s) => !claims.scopes.includes(s));
      if (missing.length > 0) throw new ForbiddenError(`This operation needs the scope ${missing.join(', ')}.`);
      annotateSpan({ [SPAN_ATTRIBUTES.teamId]: claims.teamId });
      // One read of the actor for the request, shared by operations that run at the same time (aliases).
      req.pendingActor ??= this.actors.pendingActor(claims, (actor) => (req.actor ??= actor));
      if (this.reflector.get<boolean | undefined>(ACTOR_IN_STATEMENT, context.getHandler())) return true;
      await req.pendingActor.resolve();
      return true;
    }
    annotateSpan({ [SPAN_ATTRIBUTES.teamId]: req.actor.teamId });
    const missing = required.filter((s) => !req.actor?.hasScope(s));
    if (missing.length > 0) throw new ForbiddenError(`This operation needs the scope ${missing.join(', ')}.`);
    return true;
  }
}
