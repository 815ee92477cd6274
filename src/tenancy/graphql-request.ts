import type { ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Request } from 'express';
import type { ActorContext } from './actor-context';

export type RequestWithActor = Request & { actor?: ActorContext };

export function graphqlRequest(context: ExecutionContext): RequestWithActor {
  return GqlExecutionContext.create(context).getContext<{ req: RequestWithActor }>().req;
}
