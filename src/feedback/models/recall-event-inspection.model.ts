import { Field, ObjectType } from '@nestjs/graphql';
import { PageInfoModel } from '../../common/pagination/page-info.model';
import { RecallEventModel } from '../../recall-events';
import { InspectionCountFields } from './inspection-count.model';

@ObjectType('RecallEventEdge')
export class RecallEventEdge {
  @Field()
  cursor: string;

  @Field(() => RecallEventModel)
  node: RecallEventModel;
}

@ObjectType('RecallEventConnection')
export class RecallEventConnection extends InspectionCountFields {
  @Field(() => [RecallEventEdge])
  edges: RecallEventEdge[];

  @Field(() => PageInfoModel)
  pageInfo: PageInfoModel;
}
