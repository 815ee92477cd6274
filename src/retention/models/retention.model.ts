import { Field, ID, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('TableCount')
export class TableCountModel {
  @Field()
  table: string;

  @Field(() => Int)
  count: number;
}

@ObjectType('DeletionReport')
export class DeletionReportModel {
  @Field(() => ID)
  userId: string;

  @Field(() => [TableCountModel])
  deleted: TableCountModel[];
}

@ObjectType('RetentionReport')
export class RetentionReportModel {
  @Field({ description: 'True when another sweep held the lease (of the team, or of every team).' })
  skipped: boolean;

  @Field(() => [TableCountModel])
  deleted: TableCountModel[];

  @Field(() => Int)
  durationMs: number;
}
