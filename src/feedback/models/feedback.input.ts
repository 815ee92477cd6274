import { Field, ID, InputType, Int } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ResultRefFields } from '../../recall-events';
import { FeedbackQuality } from '../feedback-vocabulary';

// Bounds that name nested paths (input.recalls.3.irrelevantResultRefs) live in checkFeedbackBatch, a
// comment's length in the item's validation (judgmentProblem); @Allow keeps a field through the global whitelist.
@InputType('ResultRefInput')
export class ResultRefInput extends ResultRefFields {
  @Field(() => Int, { nullable: true })
  @Allow()
  rank?: number | null;
}

@InputType('HypothesisFeedbackInput')
export class HypothesisFeedbackInput {
  @Field(() => ID)
  @IsString()
  hypothesisId: string;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  used?: boolean | null;

  @Field(() => FeedbackQuality, { nullable: true })
  @Allow()
  quality?: FeedbackQuality | null;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  contradicted?: boolean | null;

  @Field(() => String, { nullable: true })
  @Allow()
  feedbackComment?: string | null;
}

@InputType('RecallFeedbackInput')
export class RecallFeedbackInput {
  @Field(() => ID)
  @IsString()
  recallEventId: string;

  @Field()
  @IsBoolean()
  used: boolean;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  answerSupported?: boolean | null;

  @Field(() => FeedbackQuality, { nullable: true })
  @Allow()
  quality?: FeedbackQuality | null;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  missingContext?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  irrelevant?: boolean | null;

  @Field(() => String, { nullable: true })
  @Allow()
  feedbackComment?: string | null;

  @Field(() => [ResultRefInput], { nullable: true })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => ResultRefInput)
  irrelevantResultRefs?: ResultRefInput[] | null;

  @Field(() => [HypothesisFeedbackInput], { nullable: true })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => HypothesisFeedbackInput)
  hypothesisFeedback?: HypothesisFeedbackInput[] | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Idempotency key: a replay of the same item under a recorded key records nothing new; another item under it is CONFLICT. R-FB-5',
  })
  @Allow()
  clientFeedbackId?: string | null;
}

@InputType('RecallFeedbackBatchInput')
export class RecallFeedbackBatchInput {
  @Field(() => [RecallFeedbackInput])
  @ValidateNested({ each: true })
  @Type(() => RecallFeedbackInput)
  recalls: RecallFeedbackInput[];
}

@InputType('FeedbackEventFilter')
export class FeedbackEventFilterInput {
  @Field(() => ID, { nullable: true })
  @Allow()
  spaceId?: string | null;

  @Field(() => Date, { nullable: true })
  @Allow()
  since?: Date | null;

  @Field(() => Date, { nullable: true })
  @Allow()
  until?: Date | null;

  @Field(() => FeedbackQuality, { nullable: true })
  @Allow()
  quality?: FeedbackQuality | null;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  used?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  @Allow()
  answerSupported?: boolean | null;

  @Field(() => String, { nullable: true })
  @Allow()
  contractVersion?: string | null;

  @Field(() => ID, { nullable: true, description: 'The user who submitted the feedback (actorId).' })
  @Allow()
  userId?: string | null;

  @Field(() => String, { nullable: true, description: "One of the recall's tool names (toolNames)." })
  @Allow()
  toolName?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'true: missingContext was flagged; false: it was not (false or unanswered).' })
  @Allow()
  missingContext?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'true: irrelevant was flagged; false: it was not (false or unanswered).' })
  @Allow()
  irrelevant?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'true: a non-empty feedbackComment; false: none or an empty one.' })
  @Allow()
  hasComment?: boolean | null;
}
