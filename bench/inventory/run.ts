import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { signToken } from '../../src/tenancy/token-signer';
import { intFromEnv } from '../env-settings';
import { GraphqlClient } from '../graphql-client';
import { BENCH_JWT_SECRET, type RunningService, runToCompletion, startDatabase, startService, type Teardown } from '../harness';
import { treeName, writeJson } from '../report';
import { createWorld } from '../soak-load';
import { ServiceClock } from './clock';
import { maxOfRuns } from './figures';
import type { InventoryContext, Probe } from './measure';
import { compactionProbes } from './probes/compaction';
import { edgeProbes } from './probes/edge';
import { inProcessProbes } from './probes/in-process';
import { readProbes } from './probes/reads';
import { recallProbes } from './probes/recall';
import { storedDataProbes } from './probes/stored-data';
import { writeProbes } from './probes/writes';
import { reachSteadyState } from './steady-state';
import { type InventoryRow, renderFindings, renderNotes, renderTable } from './table';

/*
 * `npm run bench:inventory` (docs/operations.md "Inventory"): every path whose CPU or memory grows
 * with a request's input or with stored data, measured at the configured limits with the hardest
 * input found for it. Starts its own PostgreSQL and the service with its default limits
 * (harness.ts), and calls the service's pure functions in this process where that is the path.
 * CPU time, not wall time (the cores may be shared): each row's largest of its runs.
 * Environment: INVENTORY_RUNS (5), INVENTORY_PROBES (all; e.g. E1,R1), INVENTORY_TIME_LIMIT_MS
 * (3600000), INVENTORY_RESULTS (bench/results/inventory-latest.json), BENCH_LOG_LEVEL (warn),
 * INVENTORY_PROFILE=1 (a CPU profile of the service per row: bench/results/profiles/inventory-<row>.cpuprofile).
 */

const RESULTS = process.env.INVENTORY_RESULTS ?? join(__dirname, '..', 'results', 'inventory-latest.json');
const PROBES: Probe[] = [
  ...edgeProbes,
  ...writeProbes,
  ...compactionProbes,
  ...recallProbes,
  ...readProbes,
  ...storedDataProbes,
  ...inProcessProbes,
];
const log = (line: string): void => console.log(line);

/** The context, and the service's heap after a full collection (between rows: each starts from a collected heap). */
async function createContext(
  teardown: Teardown,
  runs: number,
): Promise<{ ctx: InventoryContext; collectedHeapMiB: () => Promise<number>; service: RunningService }> {
  const database = await startDatabase(teardown, false);
  // The service's own limits, as a deployment has them (the main bench raises the per-team ones); no
  // scheduled sweep, which would take the rows S3 sweeps (an admin's runRetentionSweep works either way).
  const service = await startService(teardown, database.url, database.folder, {
    TEAM_MAX_DB_CONNECTIONS: undefined,
    RETENTION_ENABLED: 'false',
  });
  log(`service on ${service.baseUrl.origin} (pid ${service.pid}), default limits`);
  const client = new GraphqlClient(service.baseUrl, 16, 600_000);
  teardown.add('close the HTTP agent', () => client.close());
  const [member] = await createWorld(client, { teams: 1, usersPerTeam: 1 });
  const adminToken = await signToken({
    userId: member.userId,
    teamId: member.teamId,
    scopes: ['admin'],
    secret: BENCH_JWT_SECRET,
    expiresInSeconds: 6 * 3600,
  });
  const clock = new ServiceClock(service.pid);
  const ctx = {
    runs,
    clock,
    client,
    baseUrl: service.baseUrl,
    member,
    adminToken,
    longestLoopHoldMs: () => service.longestLoopHoldMs(),
    databaseUrl: database.url,
    log,
    note: () => undefined,
  };
  return { ctx, collectedHeapMiB: async () => (await service.collectGarbage()).heapUsed / 2 ** 20, service };
}

async function run(teardown: Teardown): Promise<boolean> {
  const runs = intFromEnv('INVENTORY_RUNS', 5);
  const only = process.env.INVENTORY_PROBES?.split(',').map((id) => id.trim());
  const probes = PROBES.filter((p) => !only || only.includes(p.id));
  const { ctx, collectedHeapMiB, service } = await createContext(teardown, runs);
  const profiling = process.env.INVENTORY_PROFILE === '1';
  await reachSteadyState(ctx);
  const rows: InventoryRow[] = [];
  const heaps: Record<string, number> = {};
  for (const probe of probes) {
    heaps[probe.id] = await collectedHeapMiB();
    const probeRuns = Math.min(runs, probe.maxRuns ?? runs);
    log(`${probe.id} ${probe.path}: ${probe.worstCase} (${probeRuns} runs)`);
    const notes: string[] = [];
    if (profiling) await service.startProfile();
    const figures = maxOfRuns(await probe.measure({ ...ctx, runs: probeRuns, note: (text) => void notes.push(text) }));
    if (profiling) await service.stopProfile(join(__dirname, '..', 'results', 'profiles', `inventory-${probe.id}.cpuprofile`));
    const { measure: _measure, maxRuns: _maxRuns, ...described } = probe;
    rows.push({ ...described, figures, notes });
    for (const note of notes) log(`  note: ${note}`);
    log(
      `  service heap before it ${heaps[probe.id].toFixed(0)} MiB; event loop ${figures.loopMs.toFixed(1)} ms (median ${figures.loopMedianMs.toFixed(1)}, longest hold ${figures.holdMs.toFixed(1)}), pool ${figures.poolMs?.toFixed(1) ?? '—'} ms, PostgreSQL ${figures.postgresMs?.toFixed(1) ?? '—'} ms, peak ${figures.peakMiB?.toFixed(1) ?? '—'} MiB`,
    );
  }
  const tree = treeName();
  const measured = `Measured by \`npm run bench:inventory\` on ${tree} (Node ${process.version}, ${availableParallelism()} cores): CPU time, the largest of ${runs} runs.`;
  log(`\n${measured}\n\n${renderTable(rows)}\n\n${renderNotes(rows)}\n\n${renderFindings(rows)}`);
  writeJson(RESULTS, {
    generatedAt: new Date().toISOString(),
    tree,
    environment: { node: process.version, cpus: availableParallelism() },
    runs,
    rows,
    serviceHeapBeforeRowMiB: heaps,
  });
  log(`written ${RESULTS}`);
  return true;
}

void runToCompletion('bench:inventory', intFromEnv('INVENTORY_TIME_LIMIT_MS', 3_600_000), run, 'the inventory failed');
