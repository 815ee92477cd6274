import { Field, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('ReturnedSnapshot', {
  description: 'A returned snapshot as an inspection shows it: its address and stub, never its payload.',
})
export class ReturnedSnapshotModel {
  @Field()
  memId: string;

  @Field()
  toolName: string;

  @Field()
  stub: string;

  @Field(() => Int)
  sizeTokens: number;

  @Field(() => Date)
  createdAt: Date;
}
