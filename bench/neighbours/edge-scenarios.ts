import { mixedLoad } from './calls';
import { distinctKeyObjects, paddedJsonBody } from '../inventory/shapes';
import { BODY_BYTES, paddedBody } from './attack-payloads';
import type { Scenario } from './scenario';

/** Findings 3 and 7: clients without a token, and whole teams flooding the admission. */

const UNAUTHENTICATED_CLIENTS = 4;

/** Four clients posting `body` (9.8 MB) to `path` with no token, as fast as they are answered. */
function unauthenticatedBodies(id: string, path: string, body: Buffer, headers?: Record<string, string>): Scenario {
  return {
    id,
    finding: 3,
    title: `unauthenticated bodies, ${path}`,
    attack: `${UNAUTHENTICATED_CLIENTS} clients posting 9.8 MB JSON bodies with no token to ${path}`,
    prepare: (w) => {
      const attacker = {
        team: 'anonymous',
        client: w.clients.anonymous,
        clients: UNAUTHENTICATED_CLIENTS,
        next: () => ({ op: 'no token, 9.8 MB', path, body, headers }),
      };
      return { attackers: [attacker], bystander: w.bystander(), judge: 'bystander' };
    },
  };
}

/** Two of team B's clients posting `{ me }` with 9.8 MB of small objects: the body parse alone (inventory E8). */
function smallObjectBodies(): Scenario {
  const body = Buffer.from(paddedJsonBody({ query: '{ me { userId } }', variables: { pad: 'PAD' } }, BODY_BYTES, distinctKeyObjects));
  return {
    id: '3c',
    finding: 3,
    title: 'authenticated bodies of small objects, /graphql',
    attack: '2 clients of team B posting `{ me }` with 9.8 MB of `[{"k0":0},{"k1":0},…]` (50,000 distinct keys)',
    prepare: (w) => {
      const attacker = {
        team: 'B',
        client: w.clients.B,
        clients: 2,
        next: () => ({ op: '{ me }, 9.8 MB of objects', path: '/graphql', body, token: w.members.B.token }),
      };
      return { attackers: [attacker], bystander: w.bystander(), judge: 'bystander' };
    },
  };
}

const MCP_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'recall_tool_result', arguments: { mem_id: 'mem_0', query: 'PAD' } },
};

export const edgeScenarios: Scenario[] = [
  unauthenticatedBodies('3a', '/graphql', paddedBody({ query: '{ me { userId } }', variables: { pad: 'PAD' } }, BODY_BYTES)),
  unauthenticatedBodies('3b', '/mcp', paddedBody(MCP_CALL, BODY_BYTES), { accept: 'application/json, text/event-stream' }),
  smallObjectBodies(),
  {
    id: '7a',
    finding: 7,
    title: 'admission: one team alone',
    attack: 'team B alone, NEIGHBOURS_FLOOD_CLIENTS clients of the mixed workload ({ me }, small write, block, small JSONPath read)',
    prepare: (w) => {
      const flood = mixedLoad('B', w.clients.B, w.members.B, { clients: w.settings.floodClients });
      return { attackers: [flood], bystander: null, judge: 'alone' };
    },
  },
  {
    id: '7b',
    finding: 7,
    title: 'admission: two teams flood, a third one at a time',
    attack:
      'teams B and D, NEIGHBOURS_FLOOD_CLIENTS clients each of the mixed workload; team C one request at a time (NEIGHBOURS_THIRD_TEAM_RATE a second)',
    prepare: (w) => {
      const flood = { clients: w.settings.floodClients };
      const floods = [mixedLoad('B', w.clients.B, w.members.B, flood), mixedLoad('D', w.clients.D, w.members.D, flood)];
      const third = mixedLoad('C', w.clients.C, w.members.C, { clients: 1, callsPerSecond: w.settings.thirdTeamRate });
      return { attackers: floods, bystander: third, judge: 'shared' };
    },
  },
];
