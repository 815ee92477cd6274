// The Tenancy module's public surface: what the modules above it may use.
export { ActorContext, type AllowedSpace } from './actor-context';
export { Actor, ActorInStatement, Caller } from './actor.decorator';
export { ActorService } from './actor.service';
export { type AuthenticatedRequest, authenticateBeforeBody, edgeClaims, jsonBodyMayBeRead } from './edge-authentication';
export { Space, Team, TENANCY_ENTITIES, User } from './entities';
export { FeatureFlagService } from './feature-flag.service';
export { FeatureFlagKey } from './feature-flags';
export { bearerChallenge, protectedResourceMetadataUrl } from './protected-resource';
export { REQUIRED_SCOPES, RequiresScope } from './requires-scope.decorator';
export { Scope } from './scopes';
export { TENANCY_RESOLVERS, TenancyModule } from './tenancy.module';
export { TeamAdmission } from './team-admission';
export { TeamService } from './team.service';
export { TeamToolSettingsResolver } from './team-tool-settings.resolver';
export { type ActorColumns, actorOf, type ActorOrPending, allowedSpacesOf, asActorError, PendingActor } from './pending-actor';
export { signToken } from './token-signer';
export { TokenVerifier } from './token-verifier';
export { UserService } from './user.service';
