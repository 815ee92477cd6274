import { Args, ID, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { Actor } from './actor.decorator';
import type { ActorContext } from './actor-context';
import { FeatureFlagService } from './feature-flag.service';
import { ActorModel } from './models/actor.model';
import { FeatureFlagModel } from './models/feature-flag.model';
import { SpaceModel } from './models/space.model';
import { RequiresScope } from './requires-scope.decorator';
import { Scope } from './scopes';
import { SpaceService } from './space.service';

@Resolver(() => ActorModel)
export class TenancyResolver {
  constructor(
    private readonly spaceService: SpaceService,
    private readonly flags: FeatureFlagService,
  ) {}

  @Query(() => ActorModel, { description: 'Any valid token; provisions the user and team on first use. R-TN-3' })
  @RequiresScope()
  me(@Actor() actor: ActorContext): ActorModel {
    return { userId: actor.userId, teamId: actor.teamId, scopes: [...actor.scopes] };
  }

  @ResolveField('spaces', () => [SpaceModel])
  meSpaces(@Parent() _me: ActorModel, @Actor() actor: ActorContext): Promise<SpaceModel[]> {
    return this.spaceService.listAllowed(actor);
  }

  @Query(() => [SpaceModel], { description: 'Admin: all spaces of the team. R-TN-6' })
  @RequiresScope(Scope.ADMIN)
  spaces(@Actor() actor: ActorContext): Promise<SpaceModel[]> {
    return this.spaceService.listForTeam(actor);
  }

  @Query(() => [FeatureFlagModel], { description: 'admin. R-TN-7' })
  @RequiresScope(Scope.ADMIN)
  featureFlags(@Actor() actor: ActorContext): Promise<FeatureFlagModel[]> {
    return this.flags.listForTeam(actor.teamId);
  }

  @Mutation(() => SpaceModel, { description: 'admin. R-TN-6' })
  @RequiresScope(Scope.ADMIN)
  createSpace(@Actor() actor: ActorContext, @Args('name') name: string): Promise<SpaceModel> {
    return this.spaceService.create(actor, name);
  }

  @Mutation(() => SpaceModel, { description: "admin; provisions the user in the admin's team if unknown. R-TN-6" })
  @RequiresScope(Scope.ADMIN)
  addSpaceMember(
    @Actor() actor: ActorContext,
    @Args('spaceId', { type: () => ID }, new UuidPipe('spaceId')) spaceId: string,
    @Args('userId', { type: () => ID }, new UuidPipe('userId')) userId: string,
  ): Promise<SpaceModel> {
    return this.spaceService.addMember(actor, spaceId, userId);
  }

  @Mutation(() => SpaceModel, { description: 'admin. R-TN-6' })
  @RequiresScope(Scope.ADMIN)
  removeSpaceMember(
    @Actor() actor: ActorContext,
    @Args('spaceId', { type: () => ID }, new UuidPipe('spaceId')) spaceId: string,
    @Args('userId', { type: () => ID }, new UuidPipe('userId')) userId: string,
  ): Promise<SpaceModel> {
    return this.spaceService.removeMember(actor, spaceId, userId);
  }

  @Mutation(() => SpaceModel, { description: 'admin. R-TN-6' })
  @RequiresScope(Scope.ADMIN)
  sealSpace(
    @Actor() actor: ActorContext,
    @Args('spaceId', { type: () => ID }, new UuidPipe('spaceId')) spaceId: string,
  ): Promise<SpaceModel> {
    return this.spaceService.seal(actor, spaceId);
  }

  @Mutation(() => SpaceModel, { description: 'admin. R-TN-6' })
  @RequiresScope(Scope.ADMIN)
  retireSpace(
    @Actor() actor: ActorContext,
    @Args('spaceId', { type: () => ID }, new UuidPipe('spaceId')) spaceId: string,
  ): Promise<SpaceModel> {
    return this.spaceService.retire(actor, spaceId);
  }

  @Mutation(() => SpaceModel, { description: 'admin. R-TN-6' })
  @RequiresScope(Scope.ADMIN)
  bumpSpaceGeneration(
    @Actor() actor: ActorContext,
    @Args('spaceId', { type: () => ID }, new UuidPipe('spaceId')) spaceId: string,
  ): Promise<SpaceModel> {
    return this.spaceService.bumpGeneration(actor, spaceId);
  }

  @Mutation(() => FeatureFlagModel, { description: 'admin. R-TN-7' })
  @RequiresScope(Scope.ADMIN)
  setFeatureFlag(@Actor() actor: ActorContext, @Args('key') key: string, @Args('enabled') enabled: boolean): Promise<FeatureFlagModel> {
    return this.flags.setForTeam(actor.teamId, key, enabled);
  }
}
