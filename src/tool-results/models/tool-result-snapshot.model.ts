import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { PageInfoModel } from '../../common/pagination/page-info.model';
import { ToolResultHandleModel } from './tool-result-handle.model';

@ObjectType('ToolResultSnapshot')
export class ToolResultSnapshotModel {
  @Field(() => ID)
  id: string;

  @Field()
  memId: string;

  @Field(() => ID)
  spaceId: string;

  @Field(() => ID)
  conversationId: string;

  @Field(() => ID)
  messageId: string;

  @Field()
  toolUseId: string;

  @Field()
  toolName: string;

  // Loaded only when the query selects them (see payloadColumnsOf).
  @Field(() => GraphQLJSON)
  toolInput?: unknown;

  @Field(() => GraphQLJSON)
  toolOutput?: unknown;

  @Field(() => Int)
  sizeChars: number;

  @Field(() => Date)
  createdAt: Date;

  @Field(() => ToolResultHandleModel)
  handle?: ToolResultHandleModel;
}

@ObjectType('RecordToolResultsPayload')
export class RecordToolResultsPayload {
  @Field(() => [ToolResultSnapshotModel], { description: 'In input order; a duplicate returns the original snapshot.' })
  snapshots: ToolResultSnapshotModel[];

  @Field(() => Int)
  createdCount: number;

  @Field(() => Int)
  duplicateCount: number;
}

@ObjectType('ToolResultEdge')
export class ToolResultEdge {
  @Field()
  cursor: string;

  @Field(() => ToolResultSnapshotModel)
  node: ToolResultSnapshotModel;
}

@ObjectType('ToolResultConnection')
export class ToolResultConnection {
  @Field(() => [ToolResultEdge])
  edges: ToolResultEdge[];

  @Field(() => PageInfoModel)
  pageInfo: PageInfoModel;
}
