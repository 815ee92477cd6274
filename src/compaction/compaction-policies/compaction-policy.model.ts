import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('ToolCompactionPolicy', {
  description: "A team's compaction policy for one tool, applied where a compactMessages request says nothing (R-LG-4).",
})
export class ToolCompactionPolicyModel {
  @Field(() => String)
  toolName: string;

  @Field(() => Boolean, { description: "The tool's results and inputs are never compacted." })
  neverCompact: boolean;

  @Field(() => Int, { nullable: true, description: 'Its own keepLastN: this many of its latest results stay as they are.' })
  keepLastN: number | null;

  @Field(() => Int, { nullable: true, description: 'Its own sizeThreshold: its results longer than this many characters are compacted.' })
  sizeThreshold: number | null;

  @Field(() => Boolean, { description: 'Its call arguments over the threshold are recorded and replaced by a stub.' })
  clearInputs: boolean;

  @Field(() => Int, { description: 'Starts at 1; one more on each change.' })
  version: number;

  @Field(() => Date)
  updatedAt: Date;
}

// No class-validator rules: the resolver takes this input past the global pipe, and
// `checkCompactionPolicy` checks it, naming the field (`policy.keepLastN`).
@InputType('ToolCompactionPolicyInput', {
  description: 'The whole policy for one tool (an unset setting is none): at least one setting; neverCompact true goes with no other.',
})
export class ToolCompactionPolicyInput {
  @Field(() => Boolean, { nullable: true, description: "Never compact the tool's results or inputs." })
  neverCompact?: boolean | null;

  @Field(() => Int, { nullable: true, description: '0 to 1000.' })
  keepLastN?: number | null;

  @Field(() => Int, { nullable: true, description: '1 to 10,000,000 characters.' })
  sizeThreshold?: number | null;

  @Field(() => Boolean, { nullable: true, description: 'Record and stub its call arguments over the threshold.' })
  clearInputs?: boolean | null;
}
