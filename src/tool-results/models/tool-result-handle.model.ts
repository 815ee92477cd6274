import { Field, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('ToolResultHandle')
export class ToolResultHandleModel {
  @Field()
  memId: string;

  @Field()
  toolName: string;

  @Field()
  toolCallId: string;

  @Field(() => Int)
  sizeChars: number;

  @Field(() => Int, { description: 'Tokens of the payload as the model saw it (o200k).' })
  sizeTokens: number;

  @Field()
  summaryOneliner: string;

  @Field(() => String, { nullable: true })
  schemaHint: string | null;

  @Field(() => String, { nullable: true })
  headPreview: string | null;

  @Field({ description: 'Deterministic wire replacement for the payload. R-LG-1' })
  stub: string;
}
