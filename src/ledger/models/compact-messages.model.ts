import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';
import { ToolResultHandleModel } from '../../tool-results';
import { COMPACTION_DEFAULTS } from '../compact-messages.rules';

// @Allow only keeps each field through the global whitelisting pipe: the checks live in
// `checkCompactMessagesInput`, which names paths inside the message list (`input.messages.3…`).
@InputType('CompactMessagesInput')
export class CompactMessagesInput {
  @Field(() => ID)
  @Allow()
  spaceId: string;

  @Field(() => ID)
  @Allow()
  conversationId: string;

  @Field(() => GraphQLJSON, { description: 'Anthropic Messages format: [{role, content: [...blocks], id?}]' })
  @Allow()
  messages: unknown;

  @Field(() => Int, { nullable: true, defaultValue: COMPACTION_DEFAULTS.sizeThreshold })
  @Allow()
  sizeThreshold?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: COMPACTION_DEFAULTS.keepLastN })
  @Allow()
  keepLastN?: number | null;

  @Field(() => [String], { nullable: true })
  @Allow()
  excludeTools?: string[] | null;

  @Field(() => Int, {
    nullable: true,
    defaultValue: COMPACTION_DEFAULTS.clearAtLeastTokens,
    description: 'Skip compaction unless it saves at least this many tokens (keeps a cached prefix when the gain is small).',
  })
  @Allow()
  clearAtLeastTokens?: number | null;
}

@ObjectType('CompactMessagesPayload')
export class CompactMessagesPayload {
  @Field(() => GraphQLJSON)
  messages: unknown;

  @Field(() => Int)
  compactedCount: number;

  @Field(() => Int)
  charsBefore: number;

  @Field(() => Int)
  charsAfter: number;

  @Field(() => Int)
  tokensBefore: number;

  @Field(() => Int)
  tokensAfter: number;

  @Field(() => [ToolResultHandleModel])
  handles: ToolResultHandleModel[];
}
