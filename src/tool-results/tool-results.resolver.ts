import { Args, ID, Info, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { InputListPipe } from '../common/graphql/input-list.pipe';
import { selectsField } from '../common/graphql/selected-fields';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { encodeCursor } from '../common/pagination/keyset-cursor';
import { Actor, type ActorContext, RequiresScope, Scope } from '../tenancy';
import type { SnapshotColumns, ToolResultSnapshot } from './tool-result-snapshot';
import { ToolResultHandleModel } from './models/tool-result-handle.model';
import { ToolResultInput } from './models/tool-result.input';
import { RecordToolResultsPayload, ToolResultConnection, ToolResultSnapshotModel } from './models/tool-result-snapshot.model';
import { ToolResultReader } from './tool-result-reader.service';
import { ToolResultWriter } from './tool-result-writer.service';

/** The payload columns a query selects on the snapshots at `path`; the handle never needs them. */
export function payloadColumnsOf(info: GraphQLResolveInfo, path: readonly string[] = []): SnapshotColumns {
  return { input: selectsField(info, [...path, 'toolInput']), output: selectsField(info, [...path, 'toolOutput']) };
}

@Resolver(() => ToolResultSnapshotModel)
export class ToolResultsResolver {
  constructor(
    private readonly toolResultWriter: ToolResultWriter,
    private readonly snapshots: ToolResultReader,
  ) {}

  @Mutation(() => RecordToolResultsPayload, { description: 'memory:write. R-TR-1..6' })
  @RequiresScope(Scope.MEMORY_WRITE)
  recordToolResults(
    @Actor() actor: ActorContext,
    @Args('input', { type: () => [ToolResultInput] }, new InputListPipe(ToolResultInput, 'input')) input: ToolResultInput[],
    @Info() info: GraphQLResolveInfo,
  ): Promise<RecordToolResultsPayload> {
    return this.toolResultWriter.record(actor, input, { columns: payloadColumnsOf(info, ['snapshots']) });
  }

  @Query(() => ToolResultConnection, { description: 'memory:read. R-TR-7' })
  @RequiresScope(Scope.MEMORY_READ)
  async toolResultHistory(
    @Actor() actor: ActorContext,
    @Args('conversationId', { type: () => ID, nullable: true }, new UuidPipe('conversationId', true)) conversationId: string | null,
    @Args('toolName', { type: () => String, nullable: true }) toolName: string | null,
    @Args('since', { type: () => Date, nullable: true }) since: Date | null,
    @Args('until', { type: () => Date, nullable: true }) until: Date | null,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ToolResultConnection> {
    const filter = { conversationId, toolName, since, until };
    const page = await this.snapshots.history(actor, filter, first, after, payloadColumnsOf(info, ['edges', 'node']));
    const edges = page.records.map((node) => ({ node, cursor: encodeCursor({ createdAt: node.createdKey, id: node.id }) }));
    return { edges, pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null } };
  }

  @Query(() => ToolResultSnapshotModel, { nullable: true, description: "memory:read; null when missing or not the actor's. R-TR-7" })
  @RequiresScope(Scope.MEMORY_READ)
  toolResult(
    @Actor() actor: ActorContext,
    @Args('id', { type: () => ID }, new UuidPipe('id')) id: string,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ToolResultSnapshotModel | null> {
    return this.snapshots.findOne(actor, id, payloadColumnsOf(info));
  }

  /** Stored with the snapshot when it was written (R-LG-1): served as is, never rebuilt. */
  @ResolveField('handle', () => ToolResultHandleModel)
  handle(@Parent() snapshot: ToolResultSnapshot): ToolResultHandleModel {
    return snapshot.handle;
  }
}
