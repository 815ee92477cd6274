import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { ToolResultHandleModel } from '../../tool-results';
import { COMPACTION_DEFAULTS } from '../compact-messages.checks';
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

  // No schema defaults for the per-tool settings: left out, the team's compaction policy for a tool applies (R-LG-4).
  @Field(() => Int, {
    nullable: true,
    description: `Results (and arguments) longer than this many characters are candidates. Unset: the team's policy for the tool, else ${COMPACTION_DEFAULTS.sizeThreshold}.`,
  })
  sizeThreshold?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: `The last N tool results (and calls) stay as they are. Unset: the team's policy for the tool (its own last N), else ${COMPACTION_DEFAULTS.keepLastN}.`,
  })
  keepLastN?: number | null;

  @Field(() => [String], {
    nullable: true,
    description: "Tools whose results are never compacted. Unset: the tools the team's policies say never to compact.",
  })
  excludeTools?: string[] | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'Compact only when the history is over this many tokens; at or under it the list comes back unchanged (triggered: false). Unset: always (or over targetTokens when that is given).',
  })
  triggerTokens?: number | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'When compacting, replace eligible results oldest first, only as many as bring the history to this many tokens (all of them when it cannot be reached). Unset: every eligible result.',
  })
  targetTokens?: number | null;

  @Field(() => [String], {
    nullable: true,
    description:
      'Tool names (or "*") whose call arguments longer than the threshold are recorded and replaced by a stub too, the call id, name and pairing kept valid for the format; FULL recall of the stub\'s mem id gives the arguments back. Unset: the tools the team\'s policies say to clear.',
  })
  clearToolInputs?: string[] | null;

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

  @Field({ description: 'False when the history was at or under triggerTokens and came back unchanged.' })
  triggered: boolean;

  @Field(() => Int, { description: 'Tool results replaced by their stubs.' })
  compactedCount: number;

  @Field(() => Int, { description: 'Tool calls whose arguments were replaced by a stub (clearToolInputs).' })
  clearedInputCount: number;

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
