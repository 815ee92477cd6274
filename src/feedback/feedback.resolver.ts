import { Args, ID, Info, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { encodeCursor } from '../common/pagination/keyset-cursor';
import { RecallEventModel, RecallEventService } from '../recall-events';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import type { FeedbackEventRecord } from './feedback-event.record';
import { FeedbackStatsGroupBy } from './feedback-stats-series';
import { FeedbackInspectionService } from './feedback-inspection.service';
import { FeedbackService } from './feedback.service';
import { selectsCount } from './inspection-count.selection';
import { FeedbackEventFilterInput, RecallFeedbackBatchInput } from './models/feedback.input';
import { FeedbackEventConnection, FeedbackEventModel, FeedbackStatsRowModel, SubmitRecallFeedbackPayload } from './models/feedback.model';

@Resolver(() => FeedbackEventModel)
export class FeedbackResolver {
  constructor(
    private readonly feedback: FeedbackService,
    private readonly inspection: FeedbackInspectionService,
    private readonly recallEvents: RecallEventService,
  ) {}

  @Mutation(() => SubmitRecallFeedbackPayload, { description: 'feedback:write. R-FB-1..7' })
  @RequiresScope(Scope.FEEDBACK_WRITE)
  submitRecallFeedback(
    @Actor() actor: ActorContext,
    @Args('input', { type: () => RecallFeedbackBatchInput }) input: RecallFeedbackBatchInput,
  ): Promise<SubmitRecallFeedbackPayload> {
    return this.feedback.submit(actor, input.recalls);
  }

  @Query(() => FeedbackEventConnection, { description: 'admin. R-FB-8' })
  @RequiresScope(Scope.ADMIN)
  async feedbackEvents(
    @Actor() actor: ActorContext,
    @Args('filter', { type: () => FeedbackEventFilterInput, nullable: true }) filter: FeedbackEventFilterInput | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Info() info: GraphQLResolveInfo,
  ): Promise<FeedbackEventConnection> {
    const page = await this.inspection.list(actor, checkedFilter(filter), { first: first ?? 20, after, withCount: selectsCount(info) });
    const edges = page.records.map((node) => ({
      node: node as FeedbackEventModel,
      cursor: encodeCursor({ createdAt: node.createdKey, id: node.id }),
    }));
    return { edges, pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null }, ...page.count };
  }

  @Query(() => FeedbackEventModel, { nullable: true, description: 'admin. R-FB-8' })
  @RequiresScope(Scope.ADMIN)
  async feedbackEvent(@Actor() actor: ActorContext, @Args('id', { type: () => ID }) id: string): Promise<FeedbackEventModel | null> {
    return (await this.inspection.find(actor, id)) as FeedbackEventModel | null;
  }

  @Query(() => [FeedbackStatsRowModel], { description: 'admin. R-FB-9' })
  @RequiresScope(Scope.ADMIN)
  feedbackMetrics(
    @Actor() actor: ActorContext,
    @Args('filter', { type: () => FeedbackEventFilterInput, nullable: true }) filter: FeedbackEventFilterInput | null,
    @Args('groupBy', { type: () => FeedbackStatsGroupBy, nullable: true, defaultValue: FeedbackStatsGroupBy.NONE })
    groupBy: FeedbackStatsGroupBy | null,
  ): Promise<FeedbackStatsRowModel[]> {
    return this.inspection.stats(actor, checkedFilter(filter), groupBy ?? FeedbackStatsGroupBy.NONE);
  }

  /** The recall judged, under recallEvent's own visibility rules. */
  @ResolveField('recallEvent', () => RecallEventModel, { nullable: true })
  recallEvent(@Actor() actor: ActorContext, @Parent() event: FeedbackEventRecord): Promise<RecallEventModel | null> {
    return this.recallEvents.find(actor, event.recallEventId);
  }
}

function checkedFilter(filter: FeedbackEventFilterInput | null): FeedbackEventFilterInput {
  if (!filter) return {};
  return {
    ...filter,
    spaceId: filter.spaceId ? new UuidPipe('filter.spaceId').transform(filter.spaceId) : null,
    userId: filter.userId ? new UuidPipe('filter.userId').transform(filter.userId) : null,
  };
}
