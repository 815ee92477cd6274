import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Type } from 'class-transformer';
import { Allow, IsInt, IsString, Min, ValidateNested } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';
import { ReturnedSnapshotModel } from '../../tool-results';
import { RecallEventSource, type ResultRef, ResultRefType } from '../recall-event.checks';

registerEnumType(ResultRefType, { name: 'ResultRefType' });
registerEnumType(RecallEventSource, { name: 'RecallEventSource' });

@ObjectType('ResultRef')
export class ResultRefModel {
  @Field(() => ResultRefType)
  type: ResultRefType;

  @Field(() => ID)
  id: string;

  @Field(() => Int)
  rank: number;
}

@ObjectType('ReturnedResult', { description: 'A ref the recall returned, at its rank, with its snapshot while that is still readable.' })
export class ReturnedResultModel {
  @Field(() => ResultRefType)
  type: ResultRefType;

  @Field(() => ID)
  id: string;

  @Field(() => Int)
  rank: number;

  @Field(() => ReturnedSnapshotModel, {
    nullable: true,
    description:
      "A TOOL_RESULT ref's snapshot while it exists and is readable as the event stored it: the event's profile's, in its space, at its generation. Null otherwise, and for other ref types.",
  })
  snapshot: ReturnedSnapshotModel | null;
}

@ObjectType('SuggestedAction')
export class SuggestedActionModel {
  @Field({ description: 'submit_recall_session_feedback' })
  action: string;

  @Field(() => ID)
  recallEventId: string;
}

@ObjectType('RecallEvent')
export class RecallEventModel {
  @Field(() => ID)
  id: string;

  @Field(() => ID)
  teamId: string;

  @Field(() => ID)
  profileId: string;

  @Field(() => ID)
  spaceId: string;

  @Field(() => Int)
  spaceGeneration: number;

  @Field(() => String, { nullable: true })
  queryFingerprint: string | null;

  @Field(() => String, { nullable: true, description: 'Only when the team enabled recall_query_text_enabled.' })
  queryText: string | null;

  @Field()
  contractVersion: string;

  @Field(() => String, { nullable: true })
  rankingVersion: string | null;

  @Field(() => String, { nullable: true })
  fusionMode: string | null;

  @Field(() => String, { nullable: true })
  searchFreshness: string | null;

  @Field(() => [String])
  degradedBranches: string[];

  @Field(() => [ResultRefModel])
  results: ResultRefModel[];

  @Field(() => [String], {
    description:
      'The distinct tool names of the snapshots the recall returned, sorted; stored with the event, so they outlive the snapshots.',
  })
  toolNames: string[];

  @Field(() => GraphQLJSON, { nullable: true })
  semanticGroups: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  authoredAlternatives: unknown;

  @Field(() => String, { nullable: true })
  clarificationOutcome: string | null;

  @Field({ description: 'INTERNAL (recallMemory, recallBlock) or EXTERNAL (recordRecallEvent).' })
  source: string;

  @Field(() => Date)
  createdAt: Date;
}

/**
 * The `{type, id, rank}` ref as a GraphQL input. The contract has it twice: a recorded event's
 * result (`RecallEventResultInput`, rank required) and a feedback judgment's ref
 * (`ResultRefInput` in Feedback, rank optional); both extend this one class.
 */
@InputType({ isAbstract: true })
export abstract class ResultRefFields implements Omit<ResultRef, 'rank'> {
  @Field(() => ResultRefType)
  @Allow()
  type: ResultRefType;

  @Field(() => ID)
  @IsString()
  id: string;
}

@InputType('RecallEventResultInput')
export class RecallEventResultInput extends ResultRefFields implements ResultRef {
  @Field(() => Int)
  @IsInt()
  @Min(1)
  rank: number;
}

// Bounds that name nested paths live in `checkExternalRecallEvent`; @Allow keeps a field through the whitelist.
@InputType('RecallEventInput')
export class RecallEventInput {
  @Field(() => ID)
  @Allow()
  spaceId: string;

  @Field(() => String, { nullable: true })
  @Allow()
  query?: string | null;

  @Field()
  @IsString()
  contractVersion: string;

  @Field(() => String, { nullable: true })
  @Allow()
  rankingVersion?: string | null;

  @Field(() => String, { nullable: true })
  @Allow()
  fusionMode?: string | null;

  @Field(() => String, { nullable: true })
  @Allow()
  searchFreshness?: string | null;

  @Field(() => [String], { nullable: true })
  @Allow()
  degradedBranches?: string[] | null;

  @Field(() => [RecallEventResultInput])
  @ValidateNested({ each: true })
  @Type(() => RecallEventResultInput)
  results: RecallEventResultInput[];

  @Field(() => GraphQLJSON, { nullable: true })
  @Allow()
  semanticGroups?: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  @Allow()
  authoredAlternatives?: unknown;

  @Field(() => String, { nullable: true })
  @Allow()
  clarificationOutcome?: string | null;
}
