import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { SuggestedActionModel } from '../../recall-events';

@ObjectType('RecallBlockLine')
export class RecallBlockLineModel {
  @Field(() => ID)
  snapshotId: string;

  @Field()
  memId: string;

  @Field()
  toolName: string;

  @Field(() => Date)
  createdAt: Date;

  @Field()
  text: string;

  @Field(() => Int)
  tokens: number;
}

@ObjectType('RecallBlock')
export class RecallBlockModel {
  @Field({ description: 'The whole block, header and footer included; empty when nothing is injected.' })
  text: string;

  @Field(() => Int)
  tokens: number;

  @Field(() => [RecallBlockLineModel])
  lines: RecallBlockLineModel[];

  @Field(() => Int)
  droppedCount: number;

  @Field()
  injected: boolean;

  @Field(() => ID, { nullable: true })
  recallEventId: string | null;

  @Field(() => [SuggestedActionModel])
  suggestedActions: SuggestedActionModel[];

  @Field(() => [String])
  degradations: string[];
}
