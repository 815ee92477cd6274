import { Field, ID, ObjectType } from '@nestjs/graphql';
import { SpaceModel } from './space.model';

@ObjectType('Actor')
export class ActorModel {
  @Field(() => ID)
  userId: string;

  @Field(() => ID)
  teamId: string;

  @Field(() => [String])
  scopes: string[];

  @Field(() => [SpaceModel], { description: 'The allowed-space set: ACTIVE spaces the actor is a member of, at their current generation.' })
  spaces?: SpaceModel[];
}
