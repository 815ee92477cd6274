import { Field, ID, InputType } from '@nestjs/graphql';
import { IsDate, IsDefined, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';

@InputType('ToolResultInput')
export class ToolResultInput {
  @Field(() => ID)
  @IsUUID('all', { message: 'must be a UUID' })
  spaceId: string;

  @Field(() => ID)
  @IsUUID('all', { message: 'must be a UUID' })
  conversationId: string;

  @Field(() => ID, { description: 'The assistant message that incorporated the tool call.' })
  @IsUUID('all', { message: 'must be a UUID' })
  messageId: string;

  @Field()
  @IsString()
  @Length(1, 256, { message: 'must be 1 to 256 characters' })
  toolUseId: string;

  @Field()
  @IsString()
  @Length(1, 128, { message: 'must be 1 to 128 characters' })
  @Matches(/^[^\s]+$/, { message: 'must not contain white space' })
  toolName: string;

  @Field(() => GraphQLJSON)
  @IsDefined()
  toolInput: unknown;

  @Field(() => GraphQLJSON, { description: 'JSON, or a string for text output.' })
  @IsDefined()
  toolOutput: unknown;

  @Field(() => Date, { nullable: true, description: 'Optional, for imports; not in the future, not past the retention window.' })
  @IsOptional()
  @IsDate()
  createdAt?: Date;
}
