import { Args, ID, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { ForbiddenError } from '../common/errors/app-error';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import type { RecallEventRecord } from './recall-event.record';
import { type ReturnedResult, RecallEventService } from './recall-event.service';
import { RecallEventInput, RecallEventModel, ReturnedResultModel } from './models/recall-event.model';

@Resolver(() => RecallEventModel)
export class RecallEventsResolver {
  constructor(private readonly events: RecallEventService) {}

  @Query(() => RecallEventModel, { nullable: true, description: "memory:read for the actor's own events, admin for the team's. R-FB-8" })
  @RequiresScope()
  recallEvent(@Actor() actor: ActorContext, @Args('id', { type: () => ID }) id: string): Promise<RecallEventModel | null> {
    if (!actor.hasScope(Scope.MEMORY_READ) && !actor.hasScope(Scope.ADMIN))
      throw new ForbiddenError('This operation needs the scope memory:read or admin.');
    return this.events.find(actor, id);
  }

  @Mutation(() => RecallEventModel, { description: 'memory:write. R-RC-11' })
  @RequiresScope(Scope.MEMORY_WRITE)
  recordRecallEvent(
    @Actor() actor: ActorContext,
    @Args('input', { type: () => RecallEventInput }) input: RecallEventInput,
  ): Promise<RecallEventModel> {
    return this.events.recordExternal(actor, { ...input, spaceId: new UuidPipe('input.spaceId').transform(input.spaceId) });
  }

  /** Whoever may read the event may read its refs; a snapshot shows its address and stub only. */
  @ResolveField('returnedResults', () => [ReturnedResultModel], {
    description: 'The refs in rank order, each TOOL_RESULT ref with its snapshot while that is still readable. R-FB-8',
  })
  returnedResults(@Actor() actor: ActorContext, @Parent() event: RecallEventRecord): Promise<ReturnedResult[]> {
    return this.events.returnedResults(actor, event);
  }
}
