import { Args, ID, Info, Int, Query, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor } from '../tenancy/actor.decorator';
import type { ActorContext } from '../tenancy/actor-context';
import { RequiresScope } from '../tenancy/requires-scope.decorator';
import { Scope } from '../tenancy/scopes';
import { ToolResultSnapshotModel } from '../tool-results/models/tool-result-snapshot.model';
import { payloadColumnsOf } from '../tool-results/tool-results.resolver';
import { ToolResultsService } from '../tool-results/tool-results.service';
import { RecallBlockModel } from './models/recall-block.model';
import { checkPriorQuery } from './prior-results.rules';
import { RecallBlockService } from './recall-block.service';

@Resolver()
export class RecallResolver {
  constructor(
    private readonly blocks: RecallBlockService,
    private readonly toolResults: ToolResultsService,
  ) {}

  @Query(() => RecallBlockModel, { description: 'memory:read; records a recall event. R-RC-1..6, R-RC-9' })
  @RequiresScope(Scope.MEMORY_READ)
  async recallBlock(
    @Actor() actor: ActorContext,
    @Args('conversationId', { type: () => ID }, new UuidPipe('conversationId')) conversationId: string,
    @Args('userMessage', { type: () => String, nullable: true }) userMessage: string | null,
  ): Promise<RecallBlockModel> {
    return this.blocks.build(actor, conversationId, userMessage);
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
    const since = checkPriorQuery(limit, sinceDays, new Date());
    const page = await this.toolResults.history(actor, { conversationId, toolName, since }, limit, null, payloadColumnsOf(info));
    return page.records;
  }
}
