import { Args, ID, Info, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { ForbiddenError } from '../common/errors/app-error';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor } from '../tenancy/actor.decorator';
import type { ActorContext } from '../tenancy/actor-context';
import { RequiresScope } from '../tenancy/requires-scope.decorator';
import { Scope } from '../tenancy/scopes';
import { payloadColumnsOf } from '../tool-results/tool-results.resolver';
import { RecallEventService } from './events/recall-event.service';
import { RecallEventInput, RecallEventModel, RecallResultModel } from './models/recall-event.model';
import { RecallSearchService } from './recall-search.service';

@Resolver()
export class RecallEventsResolver {
  constructor(
    private readonly search: RecallSearchService,
    private readonly events: RecallEventService,
  ) {}

  @Query(() => RecallResultModel, { description: 'memory:read; records a recall event. R-RC-8..10' })
  @RequiresScope(Scope.MEMORY_READ)
  recallMemory(
    @Actor() actor: ActorContext,
    @Args('spaceId', { type: () => ID }, new UuidPipe('spaceId')) spaceId: string,
    @Args('query') query: string,
    @Args('conversationId', { type: () => ID, nullable: true }, new UuidPipe('conversationId', true)) conversationId: string | null,
    @Args('toolName', { type: () => String, nullable: true }) toolName: string | null,
    @Args('sinceDays', { type: () => Int, nullable: true }) sinceDays: number | null,
    @Args('limit', { type: () => Int, nullable: true, defaultValue: 5 }) limit: number,
    @Info() info: GraphQLResolveInfo,
  ): Promise<RecallResultModel> {
    const args = { spaceId, query, conversationId, toolName, sinceDays, limit: limit ?? 5 };
    return this.search.search(actor, args, payloadColumnsOf(info, ['results', 'snapshot']));
  }

  @Query(() => RecallEventModel, { nullable: true, description: "memory:read for the actor's own events, admin for the team's. R-FB-8" })
  @RequiresScope()
  recallEvent(@Actor() actor: ActorContext, @Args('id', { type: () => ID }) id: string): Promise<RecallEventModel | null> {
    if (!actor.hasScope(Scope.MEMORY_READ) && !actor.hasScope(Scope.ADMIN)) throw new ForbiddenError('This operation needs the scope memory:read or admin.');
    return this.events.find(actor, id);
  }

  @Mutation(() => RecallEventModel, { description: 'memory:write. R-RC-11' })
  @RequiresScope(Scope.MEMORY_WRITE)
  recordRecallEvent(@Actor() actor: ActorContext, @Args('input', { type: () => RecallEventInput }) input: RecallEventInput): Promise<RecallEventModel> {
    return this.events.recordExternal(actor, { ...input, spaceId: new UuidPipe('input.spaceId').transform(input.spaceId) });
  }
}
