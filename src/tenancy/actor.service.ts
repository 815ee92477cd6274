import { Injectable } from '@nestjs/common';
import { UnauthenticatedError } from '../common/errors/app-error';
import { enterTenantScope } from '../database/tenant-scope';
import { ActorContext } from './actor-context';
import { ActorRepository } from './actor.repository';
import { PendingActor, tokenOlderThanDeletion } from './pending-actor';
import type { VerifiedClaims } from './token-verifier';

/** Turns verified claims into an `ActorContext`, provisioning user and team on first use. */
@Injectable()
export class ActorService {
  constructor(private readonly actors: ActorRepository) {}

  /** The caller of an operation that reads its actor in its own statement; the tenant scope is entered here. */
  pendingActor(claims: VerifiedClaims, onSettled: (actor: ActorContext) => void): PendingActor {
    enterTenantScope({ teamId: claims.teamId, userId: claims.userId });
    return new PendingActor(claims, (c) => this.resolve(c), onSettled);
  }

  async resolve(claims: VerifiedClaims): Promise<ActorContext> {
    // From here on the request's statements see the token's team and user only (R-TN-8).
    enterTenantScope({ teamId: claims.teamId, userId: claims.userId });
    let record = await this.actors.findByUserId(claims.userId, claims.teamId, claims.issuedAt);
    if (!record) {
      await this.actors.provision(claims.userId, claims.teamId);
      record = await this.actors.findByUserId(claims.userId, claims.teamId, claims.issuedAt);
    }
    // Not provisioned again: a user's deletion (R-RT-4) ends every token issued before it.
    if (record === 'deleted') throw tokenOlderThanDeletion();
    if (!record) {
      // Provisioned a moment ago in the same team: only a deletion running meanwhile removes it again.
      throw new UnauthenticatedError("The token's user could not be provisioned in its team; retry the request.");
    }
    return new ActorContext(claims.userId, claims.teamId, claims.scopes, record.allowedSpaces);
  }
}
