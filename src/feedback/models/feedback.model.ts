import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsString, ValidateNested } from 'class-validator';
import { PageInfoModel } from '../../common/pagination/page-info.model';
import { ResultRefType } from '../../recall/events/recall-event.rules';
import { RecallEventModel, ResultRefModel } from '../../recall/models/recall-event.model';
import { FeedbackMetricsGroupBy } from '../feedback-event.repository';
import { FeedbackNextAction, FeedbackQuality } from '../feedback.rules';

registerEnumType(FeedbackQuality, { name: 'FeedbackQuality' });
registerEnumType(FeedbackNextAction, { name: 'FeedbackNextAction' });
registerEnumType(FeedbackMetricsGroupBy, { name: 'FeedbackMetricsGroupBy' });

// Bounds that name nested paths (input.recalls.3.feedbackComment) live in checkFeedbackBatch;
// @Allow keeps a field through the global whitelist.
@InputType('ResultRefInput')
export class ResultRefInput {
  @Field(() => ResultRefType)
  @Allow()
  type: ResultRefType;

  @Field(() => ID)
  @IsString()
  id: string;

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
  @ValidateNested({ each: true })
  @Type(() => ResultRefInput)
  irrelevantResultRefs?: ResultRefInput[] | null;

  @Field(() => [HypothesisFeedbackInput], { nullable: true })
  @ValidateNested({ each: true })
  @Type(() => HypothesisFeedbackInput)
  hypothesisFeedback?: HypothesisFeedbackInput[] | null;

  @Field(() => String, { nullable: true, description: 'Idempotency key: a replay with a recorded key records nothing new. R-FB-5' })
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

@ObjectType('FeedbackBatchError')
export class FeedbackBatchErrorModel {
  @Field(() => Int)
  failedIndex: number;

  @Field()
  code: string;

  @Field()
  message: string;

  @Field(() => FeedbackNextAction)
  nextAction: FeedbackNextAction;

  @Field()
  remediation: string;
}

@ObjectType('SubmitRecallFeedbackPayload')
export class SubmitRecallFeedbackPayload {
  @Field(() => Int)
  recordedCount: number;

  @Field(() => [ID], { description: 'Ids of the recorded items, in input order (a replayed item\'s existing id).' })
  feedbackEventIds: string[];

  @Field(() => FeedbackBatchErrorModel, { nullable: true })
  error: FeedbackBatchErrorModel | null;
}

@ObjectType('HypothesisJudgment')
export class HypothesisJudgmentModel {
  @Field(() => ID)
  hypothesisId: string;

  @Field(() => Boolean, { nullable: true })
  used: boolean | null;

  @Field(() => FeedbackQuality, { nullable: true })
  quality: FeedbackQuality | null;

  @Field(() => Boolean, { nullable: true })
  contradicted: boolean | null;

  @Field(() => String, { nullable: true })
  feedbackComment: string | null;
}

@ObjectType('FeedbackEvent')
export class FeedbackEventModel {
  @Field(() => ID)
  id: string;

  @Field(() => ID)
  recallEventId: string;

  @Field(() => ID)
  teamId: string;

  @Field(() => ID, { description: 'Whose recall it was.' })
  profileId: string;

  @Field(() => ID, { description: 'Who submitted the feedback.' })
  actorId: string;

  @Field(() => ID)
  spaceId: string;

  @Field(() => Int)
  spaceGeneration: number;

  @Field()
  used: boolean;

  @Field(() => Boolean, { nullable: true })
  answerSupported: boolean | null;

  @Field(() => FeedbackQuality, { nullable: true })
  quality: string | null;

  @Field(() => Boolean, { nullable: true })
  missingContext: boolean | null;

  @Field(() => Boolean, { nullable: true })
  irrelevant: boolean | null;

  @Field(() => String, { nullable: true })
  feedbackComment: string | null;

  @Field(() => [ResultRefModel])
  irrelevantResultRefs: { type: string; id: string; rank?: number | null }[];

  @Field(() => [HypothesisJudgmentModel])
  hypothesisFeedback: HypothesisJudgmentModel[];

  @Field(() => RecallEventModel, { nullable: true })
  recallEvent?: RecallEventModel | null;

  @Field(() => String, { nullable: true, description: 'The recall\'s query fingerprint, copied at submission.' })
  queryFingerprint: string | null;

  @Field({ description: 'The recall\'s contract version, copied at submission.' })
  contractVersion: string;

  @Field(() => String, { nullable: true })
  searchFreshness: string | null;

  @Field(() => String, { nullable: true })
  fusionMode: string | null;

  @Field(() => [String])
  degradedBranches: string[];

  @Field(() => [ResultRefModel], { description: 'The refs the recall returned, with their ranks.' })
  returnedRefs: { type: string; id: string; rank: number }[];

  @Field(() => String, { nullable: true })
  clientFeedbackId: string | null;

  @Field(() => Date)
  createdAt: Date;
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
}

@ObjectType('FeedbackEventEdge')
export class FeedbackEventEdge {
  @Field()
  cursor: string;

  @Field(() => FeedbackEventModel)
  node: FeedbackEventModel;
}

@ObjectType('FeedbackEventConnection')
export class FeedbackEventConnection {
  @Field(() => [FeedbackEventEdge])
  edges: FeedbackEventEdge[];

  @Field(() => PageInfoModel)
  pageInfo: PageInfoModel;
}

@ObjectType('FeedbackMetricsRow')
export class FeedbackMetricsRowModel {
  @Field(() => String, { nullable: true })
  group: string | null;

  @Field(() => Int)
  events: number;

  @Field(() => Float)
  usedRate: number;

  @Field(() => Float)
  answerSupportedRate: number;

  @Field(() => Float, { nullable: true })
  averageQuality: number | null;

  @Field(() => Float)
  missingContextRate: number;

  @Field(() => Float)
  irrelevantRate: number;
}
