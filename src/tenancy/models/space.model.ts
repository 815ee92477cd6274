import { Field, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { SpaceStatus } from '../entities/space.entity';

registerEnumType(SpaceStatus, { name: 'SpaceStatus' });

@ObjectType('Space')
export class SpaceModel {
  @Field(() => ID)
  id: string;

  @Field()
  name: string;

  @Field(() => Int)
  generation: number;

  @Field(() => SpaceStatus)
  status: SpaceStatus;

  @Field(() => [ID])
  memberIds: string[];
}
