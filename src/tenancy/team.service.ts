import { Injectable } from '@nestjs/common';
import { TeamRepository } from './team.repository';

/** What retention needs of Tenancy to sweep team by team (R-RT-1, R-TN-6). */
@Injectable()
export class TeamService {
  constructor(private readonly teams: TeamRepository) {}

  /** Every team: the scheduler's sweep runs one team's sweep after another. */
  listAllIds(): Promise<string[]> {
    return this.teams.listAllIds();
  }

  /** Every space of the team, for the modules whose rows a team reaches through its spaces (conversations). */
  spaceIdsOf(teamId: string): Promise<string[]> {
    return this.teams.spaceIdsOf(teamId);
  }
}
