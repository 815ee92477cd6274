import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ForbiddenError } from '../common/errors/app-error';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import { RecallEventService } from './recall-event.service';
import { RecallEventInput, RecallEventModel } from './models/recall-event.model';

@Resolver()
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
}
