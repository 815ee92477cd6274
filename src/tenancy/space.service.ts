import { Injectable } from '@nestjs/common';
import { BadUserInputError, ConflictError, NotFoundError } from '../common/errors/app-error';
import type { ActorContext } from './actor-context';
import { decideSpaceAction, type SpaceAction } from './space-lifecycle';
import { SpaceRepository, type SpaceView } from './space.repository';
import { UserRepository } from './user.repository';

const MAX_NAME_LENGTH = 200;

/** Admin operations on the spaces of the actor's own team (R-TN-6). */
@Injectable()
export class SpaceService {
  constructor(
    private readonly spaces: SpaceRepository,
    private readonly users: UserRepository,
  ) {}

  listForTeam(actor: ActorContext): Promise<SpaceView[]> {
    return this.spaces.listForTeam(actor.teamId);
  }

  listAllowed(actor: ActorContext): Promise<SpaceView[]> {
    return this.spaces.listByIdsInTeam(
      actor.teamId,
      actor.allowedSpaces.map((s) => s.id),
    );
  }

  async create(actor: ActorContext, rawName: string): Promise<SpaceView> {
    const name = rawName.trim();
    if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
      throw new BadUserInputError('name', `A space name must be 1 to ${MAX_NAME_LENGTH} characters after trimming.`);
    }
    const id = await this.spaces.create(actor.teamId, name, actor.userId);
    return this.get(actor, id);
  }

  async addMember(actor: ActorContext, spaceId: string, userId: string): Promise<SpaceView> {
    await this.checkAction(actor, spaceId, 'changeMembers');
    // The team's user of that id, created when new (users are per team: docs/tenancy.md).
    await this.users.ensureInTeam(actor.teamId, userId);
    await this.spaces.addMember(actor.teamId, spaceId, userId);
    return this.get(actor, spaceId);
  }

  async removeMember(actor: ActorContext, spaceId: string, userId: string): Promise<SpaceView> {
    await this.checkAction(actor, spaceId, 'changeMembers');
    if (!(await this.users.existsInTeam(actor.teamId, userId))) throw new NotFoundError('User', userId);
    await this.spaces.removeMember(actor.teamId, spaceId, userId);
    return this.get(actor, spaceId);
  }

  seal(actor: ActorContext, spaceId: string): Promise<SpaceView> {
    return this.transition(actor, spaceId, 'seal');
  }

  retire(actor: ActorContext, spaceId: string): Promise<SpaceView> {
    return this.transition(actor, spaceId, 'retire');
  }

  async bumpGeneration(actor: ActorContext, spaceId: string): Promise<SpaceView> {
    await this.checkAction(actor, spaceId, 'bumpGeneration');
    await this.spaces.bumpGeneration(actor.teamId, spaceId);
    return this.get(actor, spaceId);
  }

  private async transition(actor: ActorContext, spaceId: string, action: 'seal' | 'retire'): Promise<SpaceView> {
    const decision = await this.checkAction(actor, spaceId, action);
    if (decision.kind === 'apply') await this.spaces.setStatus(actor.teamId, spaceId, decision.status);
    return this.get(actor, spaceId);
  }

  private async checkAction(actor: ActorContext, spaceId: string, action: SpaceAction) {
    const space = await this.get(actor, spaceId);
    const decision = decideSpaceAction(space.status, action);
    if (decision.kind === 'conflict') throw new ConflictError(decision.reason);
    return decision;
  }

  private async get(actor: ActorContext, spaceId: string): Promise<SpaceView> {
    const space = await this.spaces.findInTeam(actor.teamId, spaceId);
    if (!space) throw new NotFoundError('Space', spaceId);
    return space;
  }
}
