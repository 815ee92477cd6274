import { Injectable } from '@nestjs/common';
import { UnauthenticatedError } from '../common/errors/app-error';
import { enterTenantScope } from '../database/tenant-scope';
import { ActorContext } from './actor-context';
import { ActorRepository } from './actor.repository';
import type { VerifiedClaims } from './token-verifier';

/** Turns verified claims into an `ActorContext`, provisioning user and team on first use. */
@Injectable()
export class ActorService {
  constructor(private readonly actors: ActorRepository) {}

  async resolve(claims: VerifiedClaims): Promise<ActorContext> {
    // From here on the request's statements see the token's team and user only (R-TN-8).
    enterTenantScope({ teamId: claims.teamId, userId: claims.userId });
    let record = await this.actors.findByUserId(claims.userId, claims.teamId);
    if (!record) {
      await this.actors.provision(claims.userId, claims.teamId);
      record = await this.actors.findByUserId(claims.userId, claims.teamId);
    }
    if (!record || record.teamId !== claims.teamId) {
      // R-TN-3: a user belongs to one team; a token pairing it with another is not accepted. (Under
      // row-level security such a user is not even visible: provisioning found the id taken.)
      throw new UnauthenticatedError("The token's user belongs to another team than its tid claim.");
    }
    return new ActorContext(claims.userId, claims.teamId, claims.scopes, record.allowedSpaces);
  }
}
