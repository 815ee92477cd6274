import type { GraphqlClient } from '../graphql-client';
import type { Member } from '../soak-load';
import type { MixedOp } from './calls';
import type { TeamLoad } from './team-load';

/** What every scenario gets: the four teams' members, their connections, and the settings. */
export interface World {
  /** Team A, the bystander; B, the attacker (and its admin's token); C and D, finding 7's other teams. */
  members: Record<'A' | 'B' | 'C' | 'D', Member>;
  adminB: string;
  /** Each team's connections, and those of clients without a token (finding 3). */
  clients: Record<'A' | 'B' | 'C' | 'D' | 'anonymous', GraphqlClient>;
  /** For set-up writes (not measured). */
  setup: GraphqlClient;
  settings: NeighbourSettings;
  /** Team A's mixed workload, with `ops` in place of the four ordinary ones. */
  bystander(ops?: readonly MixedOp[]): TeamLoad;
  log(line: string): void;
}

export interface NeighbourSettings {
  idleMs: number;
  attackMs: number;
  /** Team A's calls a second, over all its ops. */
  bystanderRate: number;
  /** Finding 7's third team: its calls a second, one at a time. */
  thirdTeamRate: number;
  floodClients: number;
  callTimeoutMs: number;
  responseBudgetBytes: number;
}

/** How a scenario's figures are judged (verdict.ts). */
export type Judge = 'bystander' | 'response bytes' | 'alone' | 'shared';

export interface ScenarioPlan {
  attackers: TeamLoad[];
  /** Measured idle, then under the attack; null: nobody else is on the service. */
  bystander: TeamLoad | null;
  judge: Judge;
  /** What the set-up met that the figures should say, e.g. a part of the attack the service refused up front. */
  notes?: string[];
}

export interface Scenario {
  id: string;
  /** The finding it replays. */
  finding: number;
  title: string;
  /** What the attacker sends, in words. */
  attack: string;
  /** Unmeasured set-up (the attacker's documents and rules); then what runs. */
  prepare(world: World): ScenarioPlan | Promise<ScenarioPlan>;
}
