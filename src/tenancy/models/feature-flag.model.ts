import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType('FeatureFlag')
export class FeatureFlagModel {
  @Field()
  key: string;

  @Field()
  enabled: boolean;
}
