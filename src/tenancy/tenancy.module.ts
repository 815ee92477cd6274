import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ActorRepository } from './actor.repository';
import { ActorService } from './actor.service';
import { AuthGuard } from './auth.guard';
import { FeatureFlagRepository } from './feature-flag.repository';
import { FeatureFlagService } from './feature-flag.service';
import { SpaceRepository } from './space.repository';
import { SpaceService } from './space.service';
import { TenancyResolver } from './tenancy.resolver';
import { TokenVerifier } from './token-verifier';
import { UserRepository } from './user.repository';

export const TENANCY_RESOLVERS = [TenancyResolver];

@Module({
  providers: [
    ActorRepository,
    SpaceRepository,
    UserRepository,
    FeatureFlagRepository,
    ActorService,
    SpaceService,
    FeatureFlagService,
    TokenVerifier,
    ...TENANCY_RESOLVERS,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [FeatureFlagService, SpaceService, TokenVerifier, ActorService],
})
export class TenancyModule {}
