import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { ToolResultHandleModel } from '../../tool-results';
import { COMPACTION_DEFAULTS } from '../compact-messages.rules';
import { MessageFormat } from './message-format.enum';

// No class-validator rules: the resolver takes this input past the global pipe, and
// `checkCompactMessagesInput` checks it, naming paths inside the message list (`input.messages.3…`).
@InputType('CompactMessagesInput')
export class CompactMessagesInput {
  @Field(() => ID)
  spaceId: string;

  @Field(() => ID)
  conversationId: string;

  @Field(() => GraphQLJSON, {
    description:
      'The history in messageFormat: Anthropic Messages [{role, content: [...blocks], id?}], OpenAI Chat messages, Responses input items, Gemini contents or AI SDK ModelMessages',
  })
  messages: unknown;

  @Field(() => MessageFormat, { nullable: true, defaultValue: MessageFormat.AUTO })
  messageFormat?: MessageFormat | null;

  @Field(() => Int, { nullable: true, defaultValue: COMPACTION_DEFAULTS.sizeThreshold })
  sizeThreshold?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: COMPACTION_DEFAULTS.keepLastN })
  keepLastN?: number | null;

  @Field(() => [String], { nullable: true })
  excludeTools?: string[] | null;

  @Field(() => Int, {
    nullable: true,
    defaultValue: COMPACTION_DEFAULTS.clearAtLeastTokens,
    description: 'Skip compaction unless it saves at least this many tokens (keeps a cached prefix when the gain is small).',
  })
  clearAtLeastTokens?: number | null;
}

@ObjectType('CompactMessagesPayload')
export class CompactMessagesPayload {
  @Field(() => GraphQLJSON, { description: 'The wire view, in the format of the input.' })
  messages: unknown;

  @Field(() => MessageFormat, {
    description: 'The format used: the one asked for or detected; AUTO when the list holds no tool call or result.',
  })
  messageFormat: MessageFormat;

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
