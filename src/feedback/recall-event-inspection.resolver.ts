import { Args, Info, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { ForbiddenError } from '../common/errors/app-error';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { encodeCursor } from '../common/pagination/keyset-cursor';
import { RecallEventModel, type RecallEventRecord } from '../recall-events';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import type { FeedbackEventRecord } from './feedback-event.record';
import { FeedbackInspectionService } from './feedback-inspection.service';
import { selectsCount } from './inspection-count.selection';
import { FeedbackEventModel } from './models/feedback.model';
import { RecallEventFilterInput } from './models/recall-event-inspection.input';
import { RecallEventConnection } from './models/recall-event-inspection.model';

/**
 * The admin's view of recall events (R-FB-8), in Feedback: the list filters on the feedback that
 * judges an event, and an event links to that feedback; Recall Events, below, knows neither.
 */
@Resolver(() => RecallEventModel)
export class RecallEventInspectionResolver {
  constructor(private readonly inspection: FeedbackInspectionService) {}

  @Query(() => RecallEventConnection, { description: 'admin. R-FB-8' })
  @RequiresScope(Scope.ADMIN)
  async recallEvents(
    @Actor() actor: ActorContext,
    @Args('filter', { type: () => RecallEventFilterInput, nullable: true }) filter: RecallEventFilterInput | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Info() info: GraphQLResolveInfo,
  ): Promise<RecallEventConnection> {
    const checked = { ...filter, spaceId: filter?.spaceId ? new UuidPipe('filter.spaceId').transform(filter.spaceId) : null };
    const page = await this.inspection.listRecallEvents(actor, checked, { first: first ?? 20, after, withCount: selectsCount(info) });
    const edges = page.records.map((node) => ({ node, cursor: encodeCursor({ createdAt: node.createdKey, id: node.id }) }));
    return { edges, pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null }, ...page.count };
  }

  /**
   * The visible feedback on this recall, oldest first. Admin only: a memory:read reader of its own
   * event gets FORBIDDEN on this field and the rest of the event, hence nullable.
   */
  @ResolveField('feedbackEvents', () => [FeedbackEventModel], {
    nullable: true,
    description: 'admin. The visible feedback events judging this recall, oldest first; FORBIDDEN (and null) without admin. R-FB-8',
  })
  feedbackEvents(@Actor() actor: ActorContext, @Parent() event: RecallEventRecord): Promise<FeedbackEventRecord[]> {
    if (!actor.hasScope(Scope.ADMIN)) throw new ForbiddenError('RecallEvent.feedbackEvents needs the scope admin.');
    return this.inspection.listForRecallEvent(actor, event.id);
  }
}
