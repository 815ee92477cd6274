import { Field, ID, InputType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { RecallEventSource } from '../../recall-events';

@InputType('RecallEventFilter')
export class RecallEventFilterInput {
  @Field(() => ID, { nullable: true })
  @Allow()
  spaceId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Stored at or after.' })
  @Allow()
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Stored before.' })
  @Allow()
  until?: Date | null;

  @Field(() => RecallEventSource, { nullable: true })
  @Allow()
  source?: RecallEventSource | null;

  @Field(() => String, { nullable: true, description: "One of the event's tool names (toolNames)." })
  @Allow()
  toolName?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'true: some feedback event judges it; false: none does.' })
  @Allow()
  hasFeedback?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'true: degradedBranches is non-empty; false: it is empty.' })
  @Allow()
  degraded?: boolean | null;
}
