import { Field, Float, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { PageInfoModel } from '../../common/pagination/page-info.model';
import { RecallEventModel, ResultRefModel } from '../../recall-events';
import { FeedbackStatsGroupBy } from '../feedback-stats-series';
import { FeedbackNextAction, FeedbackQuality } from '../feedback-vocabulary';
import { InspectionCountFields } from './inspection-count.model';

registerEnumType(FeedbackQuality, { name: 'FeedbackQuality' });
registerEnumType(FeedbackNextAction, { name: 'FeedbackNextAction' });
registerEnumType(FeedbackStatsGroupBy, { name: 'FeedbackMetricsGroupBy' });

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

  @Field(() => [ID], { description: "Ids of the recorded items, in input order (a replayed item's existing id)." })
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

  @Field(() => String, { nullable: true, description: "The recall's query fingerprint, copied at submission." })
  queryFingerprint: string | null;

  @Field({ description: "The recall's contract version, copied at submission." })
  contractVersion: string;

  @Field(() => String, { nullable: true })
  searchFreshness: string | null;

  @Field(() => String, { nullable: true })
  fusionMode: string | null;

  @Field(() => [String])
  degradedBranches: string[];

  @Field(() => [ResultRefModel], { description: 'The refs the recall returned, with their ranks.' })
  returnedRefs: { type: string; id: string; rank: number }[];

  @Field(() => [String], { description: "The recall's tool names (distinct, sorted), copied at submission." })
  toolNames: string[];

  @Field(() => String, { nullable: true })
  clientFeedbackId: string | null;

  @Field(() => Date)
  createdAt: Date;
}

@ObjectType('FeedbackEventEdge')
export class FeedbackEventEdge {
  @Field()
  cursor: string;

  @Field(() => FeedbackEventModel)
  node: FeedbackEventModel;
}

@ObjectType('FeedbackEventConnection')
export class FeedbackEventConnection extends InspectionCountFields {
  @Field(() => [FeedbackEventEdge])
  edges: FeedbackEventEdge[];

  @Field(() => PageInfoModel)
  pageInfo: PageInfoModel;
}

@ObjectType('FeedbackMetricsRow')
export class FeedbackStatsRowModel {
  @Field(() => String, {
    nullable: true,
    description: "The group's label; for DAY and WEEK the bucket's start as YYYY-MM-DD (UTC).",
  })
  group: string | null;

  @Field(() => Date, {
    nullable: true,
    description: 'DAY and WEEK: the start of the UTC bucket (midnight; Monday for WEEK). Null for the other groupings.',
  })
  bucketStart: Date | null;

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
