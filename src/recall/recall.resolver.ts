import { Args, ID, Info, Int, Query, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor, type ActorContext, ActorInStatement, type ActorOrPending, Caller, RequiresScope, Scope } from '../tenancy';
import { payloadColumnsOf, ToolResultSnapshotModel } from '../tool-results';
import { RecallBlockModel } from './models/recall-block.model';
import { RecallResultModel } from './models/recall-result.model';
import { PriorResultsService } from './prior-results.service';
import { RecallBlockService } from './recall-block.service';
import { RecallSearchService } from './recall-search.service';

@Resolver()
export class RecallResolver {
  constructor(
    private readonly blocks: RecallBlockService,
    private readonly search: RecallSearchService,
    private readonly priorResults: PriorResultsService,
  ) {}

  @Query(() => RecallBlockModel, { description: 'memory:read; records a recall event. R-RC-1..6, R-RC-9' })
  @RequiresScope(Scope.MEMORY_READ)
  @ActorInStatement()
  async recallBlock(
    @Caller() caller: ActorOrPending,
    @Args('conversationId', { type: () => ID }, new UuidPipe('conversationId')) conversationId: string,
    @Args('userMessage', { type: () => String, nullable: true }) userMessage: string | null,
  ): Promise<RecallBlockModel> {
    return this.blocks.build(caller, conversationId, userMessage);
  }

  @Query(() => [ToolResultSnapshotModel], { description: 'memory:read. R-RC-7' })
  @RequiresScope(Scope.MEMORY_READ)
  async priorToolResults(
    @Actor() actor: ActorContext,
    @Args('conversationId', { type: () => ID, nullable: true }, new UuidPipe('conversationId', true)) conversationId: string | null,
    @Args('toolName', { type: () => String, nullable: true }) toolName: string | null,
    @Args('sinceDays', { type: () => Int, nullable: true }) sinceDays: number | null,
    @Args('limit', { type: () => Int, nullable: true, defaultValue: 1 }) limit: number,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ToolResultSnapshotModel[]> {
    const page = await this.priorResults.find(actor, { conversationId, toolName, sinceDays, limit }, payloadColumnsOf(info));
    return page.records;
  }

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
}
