import { Field, Float, ID, ObjectType } from '@nestjs/graphql';
import { ResultRefModel, SuggestedActionModel } from '../../recall-events';
import { ToolResultSnapshotModel } from '../../tool-results';

@ObjectType('RecallHit')
export class RecallHitModel {
  @Field(() => ResultRefModel)
  ref: ResultRefModel;

  @Field(() => Float)
  score: number;

  @Field()
  line: string;

  @Field(() => ToolResultSnapshotModel, { nullable: true })
  snapshot: ToolResultSnapshotModel | null;
}

@ObjectType('RecallResult')
export class RecallResultModel {
  @Field(() => ID)
  recallEventId: string;

  @Field(() => [RecallHitModel])
  results: RecallHitModel[];

  @Field(() => [SuggestedActionModel])
  suggestedActions: SuggestedActionModel[];

  @Field(() => [String])
  degradations: string[];
}
