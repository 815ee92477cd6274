import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { signToken } from '../../src/tenancy/token-signer';
import { watchServiceCpu } from '../cpu';
import { intFromEnv } from '../env-settings';
import { GraphqlClient } from '../graphql-client';
import { BENCH_JWT_SECRET, runToCompletion, startDatabase, startService, type Teardown } from '../harness';
import { treeName, writeJson } from '../report';
import { createWorld } from '../soak-load';
import { mixedLoad, seedMember } from './calls';
import { edgeScenarios } from './edge-scenarios';
import { type ScenarioFigures, scenarioFigures } from './figures';
import { lookupScenarios } from './lookup-scenarios';
import { formatMarkdown, type NeighboursReport } from './report';
import type { NeighbourSettings, Scenario, World } from './scenario';
import { runPhase } from './team-load';
import { writeScenarios } from './write-scenarios';

/*
 * `npm run bench:neighbours` (bench/README.md "Hostile neighbours"): for each finding of issue 53,
 * team B's worst case at the configured limits while team A runs its ordinary mixed workload;
 * team A's latency idle and under the attack, the attacker's answers classified. Starts its own
 * PostgreSQL and the service with its default limits (harness.ts), as `npm run bench` does.
 * Environment: NEIGHBOURS_IDLE_MS (4000), NEIGHBOURS_ATTACK_MS (10000), NEIGHBOURS_BYSTANDER_RATE (20 calls
 * a second), NEIGHBOURS_THIRD_TEAM_RATE (5 calls a second), NEIGHBOURS_FLOOD_CLIENTS (24),
 * NEIGHBOURS_CALL_TIMEOUT_MS (120000), NEIGHBOURS_RESPONSE_BUDGET_BYTES (16 MiB), NEIGHBOURS_SCENARIOS (all:
 * 1a,1b,2a,2b,2c,3a,3b,3c,4a,4b,4c,4d,5,7a,7b), NEIGHBOURS_TIME_LIMIT_MS (1200000), NEIGHBOURS_RESULTS
 * (bench/results/neighbours-latest.json), BENCH_LOG_LEVEL (warn).
 */

const RESULTS = process.env.NEIGHBOURS_RESULTS ?? join(__dirname, '..', 'results', 'neighbours-latest.json');
const SCENARIOS: Scenario[] = [...lookupScenarios, ...writeScenarios, ...edgeScenarios].sort((a, b) =>
  a.id.localeCompare(b.id, 'en', { numeric: true }),
);
const WARMUP_MS = 3_000;
const log = (line: string): void => console.log(line);

function settingsFromEnv(): NeighbourSettings {
  return {
    idleMs: intFromEnv('NEIGHBOURS_IDLE_MS', 4_000),
    attackMs: intFromEnv('NEIGHBOURS_ATTACK_MS', 10_000),
    bystanderRate: intFromEnv('NEIGHBOURS_BYSTANDER_RATE', 20),
    thirdTeamRate: intFromEnv('NEIGHBOURS_THIRD_TEAM_RATE', 5),
    floodClients: intFromEnv('NEIGHBOURS_FLOOD_CLIENTS', 24),
    callTimeoutMs: intFromEnv('NEIGHBOURS_CALL_TIMEOUT_MS', 120_000),
    responseBudgetBytes: intFromEnv('NEIGHBOURS_RESPONSE_BUDGET_BYTES', 16 * 1024 * 1024),
  };
}

async function createNeighbours(teardown: Teardown, baseUrl: URL, settings: NeighbourSettings): Promise<World> {
  const client = (maxSockets: number) => {
    const c = new GraphqlClient(baseUrl, maxSockets, settings.callTimeoutMs);
    teardown.add('close an HTTP agent', () => c.close());
    return c;
  };
  const setup = client(4);
  const [A, B, C, D] = await createWorld(setup, { teams: 4, usersPerTeam: 1 });
  for (const member of [A, B, C, D]) await seedMember(setup, member);
  const adminB = await signToken({
    userId: B.userId,
    teamId: B.teamId,
    scopes: ['admin'],
    secret: BENCH_JWT_SECRET,
    expiresInSeconds: 3 * 3600,
  });
  const sockets = Math.max(settings.floodClients, 16) + 4;
  const clients = { A: client(sockets), B: client(sockets), C: client(sockets), D: client(sockets), anonymous: client(sockets) };
  return {
    members: { A, B, C, D },
    adminB,
    clients,
    setup,
    settings,
    bystander: (ops) => mixedLoad('A', clients.A, A, { ops, perOp: true, callsPerSecond: settings.bystanderRate }),
    log,
  };
}

async function runScenario(world: World, scenario: Scenario): Promise<ScenarioFigures> {
  const { settings } = world;
  log(`${scenario.id} ${scenario.title}: ${scenario.attack}`);
  const plan = await scenario.prepare(world);
  const idle = plan.bystander ? await runPhase([], plan.bystander, settings.idleMs) : null;
  const attack = await runPhase(plan.attackers, plan.bystander, settings.attackMs);
  const figures = scenarioFigures(scenario, plan, idle, attack, settings.responseBudgetBytes);
  for (const note of figures.notes) log(`  note: ${note}`);
  log(`  ${figures.verdict.met === false ? 'MISSED' : 'met'}: ${figures.verdict.line} (attack ${figures.attackSeconds} s)`);
  for (const a of figures.attackers) {
    if (a.serverErrors > 0)
      log(`  !!! ${a.serverErrors} answers to team ${a.team} were SERVER ERRORS (500): see the service's log above !!!`);
  }
  return figures;
}

async function run(teardown: Teardown): Promise<boolean> {
  const settings = settingsFromEnv();
  const only = process.env.NEIGHBOURS_SCENARIOS?.split(',').map((id) => id.trim());
  const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.id));
  log(`recall-ledger hostile neighbours: ${scenarios.map((s) => s.id).join(', ')}`);
  const database = await startDatabase(teardown, false);
  // The service's own limits (the main bench raises the per-team ones), unless this run sets them.
  const service = await startService(teardown, database.url, database.folder, {
    MAX_IN_FLIGHT: process.env.MAX_IN_FLIGHT,
    MAX_IN_FLIGHT_ALONE: process.env.MAX_IN_FLIGHT_ALONE,
    MAX_LARGE_REQUESTS_IN_FLIGHT: process.env.MAX_LARGE_REQUESTS_IN_FLIGHT,
    TEAM_MAX_DB_CONNECTIONS: process.env.TEAM_MAX_DB_CONNECTIONS,
  });
  watchServiceCpu(service.pid);
  log(`service on ${service.baseUrl.origin} (pid ${service.pid}), default limits`);
  const world = await createNeighbours(teardown, service.baseUrl, settings);
  // A fresh process runs unoptimized code for its first seconds: team A's workload warms it.
  await runPhase([], world.bystander(), WARMUP_MS);

  const figures: ScenarioFigures[] = [];
  for (const scenario of scenarios) figures.push(await runScenario(world, scenario));
  const report: NeighboursReport = {
    generatedAt: new Date().toISOString(),
    tree: treeName(),
    environment: { node: process.version, cpus: availableParallelism() },
    settings: { ...settings },
    scenarios: figures,
  };
  const markdown = formatMarkdown(report);
  log(`\n${markdown}`);
  writeJson(RESULTS, report);
  log(`written ${RESULTS}`);
  return figures.every((f) => f.verdict.met !== false);
}

async function main(): Promise<void> {
  await runToCompletion(
    'bench:neighbours',
    intFromEnv('NEIGHBOURS_TIME_LIMIT_MS', 20 * 60_000),
    run,
    'some scenarios missed their line (see the table)',
  );
}

void main();
