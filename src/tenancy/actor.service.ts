import { Injectable } from '@nestjs/common';
import { UnauthenticatedError } from '../common/errors/app-error';
import { ActorContext } from './actor-context';
import { ActorRepository } from './actor.repository';
import type { VerifiedClaims } from './token-verifier';

/** Turns verified claims into an `ActorContext`, provisioning user and team on first use. */
@Injectable()
export class ActorService {
  constructor(private readonly actors: ActorRepository) {}

  async resolve(claims: VerifiedClaims): Promise<ActorContext> {
    let record = await this.actors.findByUserId(claims.userId);
    if (!record) {
      await this.actors.provision(claims.userId, claims.teamId);
      record = await this.actors.findByUserId(claims.userId);
    }
    if (!record || record.teamId !== claims.teamId) {
      // R-TN-3: a user belongs to one team; a token pairing it with another is not accepted.
      throw new UnauthenticatedError("The token's user belongs to another team than its tid claim.");
    }
    return new ActorContext(claims.userId, claims.teamId, claims.scopes, record.allowedSpaces);
  }
}
