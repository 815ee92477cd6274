import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { ActorRepository } from './actor.repository';
import { ActorService } from './actor.service';
import { AuthGuard } from './auth.guard';
import { TENANCY_ENTITIES } from './entities';
import { FeatureFlagRepository } from './feature-flag.repository';
import { FAIRNESS_METRIC_PROVIDERS, FairnessMetrics } from './fairness.metrics';
import { FeatureFlagService } from './feature-flag.service';
import { ProtectedResourceController } from './protected-resource.controller';
import { SpaceRepository } from './space.repository';
import { SpaceService } from './space.service';
import { TeamRepository } from './team.repository';
import { TeamAdmission } from './team-admission';
import { TeamService } from './team.service';
import { TenancyResolver } from './tenancy.resolver';
import { TokenVerifier } from './token-verifier';
import { UserRepository } from './user.repository';
import { UserService } from './user.service';

export const TENANCY_RESOLVERS = [TenancyResolver];

@Module({
  imports: [MikroOrmModule.forFeature(TENANCY_ENTITIES)],
  controllers: [ProtectedResourceController],
  providers: [
    ActorRepository,
    SpaceRepository,
    UserRepository,
    TeamRepository,
    FeatureFlagRepository,
    ActorService,
    SpaceService,
    UserService,
    TeamService,
    FeatureFlagService,
    TokenVerifier,
    TeamAdmission,
    FairnessMetrics,
    ...FAIRNESS_METRIC_PROVIDERS,
    ...TENANCY_RESOLVERS,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [FeatureFlagService, SpaceService, TokenVerifier, ActorService, UserService, TeamService, TeamAdmission],
})
export class TenancyModule {}
