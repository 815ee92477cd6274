import { Field, Int, ObjectType } from '@nestjs/graphql';
import { GraphQLJSON } from 'graphql-scalars';

@ObjectType('ToolSummaryRule', { description: "A team's summary rules for one tool, in place of the built-in ones (R-RC-3)." })
export class TeamSummaryRulesModel {
  @Field()
  toolName: string;

  @Field(() => GraphQLJSON, { description: 'The document: {"version": 1, "rules": [{"when"?: {...}, "parts": [...]}]}.' })
  rule: unknown;

  @Field(() => Int, { description: 'Starts at 1; one more on each change.' })
  version: number;

  @Field(() => Date)
  updatedAt: Date;
}
