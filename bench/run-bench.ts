import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { signToken } from '../src/tenancy/token-signer';
import { loadDataSet } from './data-loader';
import { intFromEnv } from './env-settings';
import { explainHotReads } from './explain';
import { watchServiceCpu } from './cpu';
import { GraphqlClient } from './graphql-client';
import { type LoadResult, runLoad } from './load-runner';
import {
  BENCH_JWT_SECRET,
  runToCompletion,
  startBareStack,
  startDatabase,
  startOtlpSink,
  startService,
  type RunningService,
  type Teardown,
} from './harness';
import type { BenchContext, BenchSettings, ResultRow } from './ops/context';
import { compactMessagesOps } from './ops/compact-messages';
import { graphqlFloorOps } from './ops/graphql-floor';
import { recallBlockOps } from './ops/recall-block';
import { recallMemoryOps } from './ops/recall-memory';
import { retentionSweepOps } from './ops/retention-sweep';
import { storageOps } from './ops/storage';
import { submitFeedbackOps } from './ops/submit-feedback';
import { recallToolResultOps } from './ops/recall-tool-result';
import { recordToolResultsOps } from './ops/record-tool-results';
import { versusOps } from './ops/versus';
import { StatementStats } from './pg-stats';
import { type CpuProfile, formatSummary, summarizeProfile } from './profile-summary';
import { type BenchReport, formatTable, writeJson } from './report';

/*
 * `npm run bench`: docs/requirements.md §9. Starts its own PostgreSQL and the service in a process of its own, loads a
 * seeded data set, and measures each operation next to the raw SQL doing the same work.
 * Environment: BENCH_SNAPSHOTS (1000000), BENCH_CONVERSATIONS (10000), BENCH_USERS (500),
 * BENCH_CONCURRENCY (16), BENCH_DURATION_MS (8000), BENCH_WARMUP_MS (2000),
 * BENCH_TIME_LIMIT_MS (900000), BENCH_OPS (storage,floor,versus,record,block,search,path,compact,feedback,sweep), BENCH_PG_STATS=1, BENCH_EXPLAIN=1,
 * BENCH_VERSUS_TREE (another checkout, beside this tree's service: ops/versus.ts), BENCH_VERSUS_ENV,
 * BENCH_LOG_LEVEL (warn), BENCH_PROFILE=1 (a CPU profile of the service per op, summarized by package),
 * BENCH_RLS=off (row-level security disabled on every table after loading: what the policies cost),
 * BENCH_RESULTS (bench/results/latest.json: where the report is written).
 */

const RESULTS = process.env.BENCH_RESULTS ?? join(__dirname, 'results', 'latest.json');
const PROFILES = join(__dirname, 'results', 'profiles');
const SERVICE_WARMUP_MS = 5000;

const indent = (text: string, prefix: string): string =>
  text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');

const log = (line: string): void => console.log(line);

function summary(r: LoadResult | null): string {
  if (!r) return '—';
  const cpu = `CPU/request: service ${r.nodeCpuMsPerRequest.toFixed(2)} ms, client ${r.clientCpuMsPerRequest.toFixed(2)} ms, postgres ${r.postgresCpuMsPerRequest.toFixed(2)} ms`;
  return `${r.rps.toFixed(0)} rps, p50 ${r.p50.toFixed(2)} ms (${cpu})`;
}

async function run(teardown: Teardown): Promise<boolean> {
  const size = {
    users: intFromEnv('BENCH_USERS', 500),
    conversations: intFromEnv('BENCH_CONVERSATIONS', 10_000),
    snapshots: intFromEnv('BENCH_SNAPSHOTS', 1_000_000),
  };
  const settings: BenchSettings = {
    concurrency: intFromEnv('BENCH_CONCURRENCY', 16),
    warmupMs: intFromEnv('BENCH_WARMUP_MS', 2_000),
    durationMs: intFromEnv('BENCH_DURATION_MS', 8_000),
    maxRequests: 200_000,
  };
  const pgStats = process.env.BENCH_PG_STATS === '1';

  log(`recall-ledger bench: ${size.snapshots.toLocaleString('en-US')} snapshots, ${size.conversations} conversations, ${size.users} users`);
  const database = await startDatabase(teardown, pgStats);
  const service = await startService(teardown, database.url, database.folder);
  watchServiceCpu(service.pid);
  const profiling = process.env.BENCH_PROFILE === '1';
  if (profiling) mkdirSync(PROFILES, { recursive: true });
  log(`service on ${service.baseUrl.origin}, migrations applied`);

  const loadStarted = performance.now();
  const data = await loadDataSet(database.url, size, log);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  log(`data set loaded and analyzed in ${loadSeconds.toFixed(1)} s`);
  if (process.env.BENCH_RLS === 'off') {
    await disableRowLevelSecurity(database.url);
    log('row-level security disabled on every table (BENCH_RLS=off): the same build without the policies');
  }

  const raw = new Pool({ connectionString: database.url, max: settings.concurrency });
  teardown.add('close the raw pool', () => raw.end());
  const client = new GraphqlClient(service.baseUrl, settings.concurrency * 2);
  teardown.add('close the HTTP agent', () => client.close());
  const stats = new StatementStats(raw, pgStats);
  const scopes = ['memory:read', 'memory:write'];
  const tokens = await Promise.all(
    data.userIds.map((userId) => signToken({ userId, teamId: data.teamId, scopes, secret: BENCH_JWT_SECRET, expiresInSeconds: 3 * 3600 })),
  );
  if (process.env.BENCH_EXPLAIN === '1') await explainHotReads(raw, data, log);

  // A fresh process runs unoptimized code for its first seconds: warm the whole request path once,
  // so the first row is not measured on a colder service than the others.
  await runLoad((worker, seq) => client.call('{ me { userId teamId } }', {}, tokens[(worker * 31 + seq) % tokens.length]), {
    concurrency: 4,
    warmupMs: 0,
    durationMs: SERVICE_WARMUP_MS,
    maxRequests: Number.MAX_SAFE_INTEGER,
  });

  const ctx: BenchContext = {
    data,
    service: client,
    raw,
    tokens,
    settings,
    log,
    bareStack: async (adapter) => {
      const bare = await startBareStack(teardown, database.url, adapter);
      const bareClient = new GraphqlClient(bare.baseUrl, settings.concurrency * 2);
      return {
        client: bareClient,
        measured: async (work) => {
          watchServiceCpu(bare.pid);
          try {
            return await work();
          } finally {
            watchServiceCpu(service.pid);
          }
        },
        stop: async () => {
          bareClient.close();
          await bare.stop();
        },
      };
    },
    freshService: async ({ traces, tree, env = {} }) => {
      const sink = await startOtlpSink(teardown);
      const tracing: Record<string, string> = traces
        ? {
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: sink.endpoint,
            OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
            OTEL_TRACES_SAMPLER_ARG: String(traces.ratio),
          }
        : {};
      const fresh = await startService(teardown, database.url, database.folder, { ...env, ...tracing }, tree);
      const freshClient = new GraphqlClient(fresh.baseUrl, settings.concurrency * 2);
      const name = tree ? 'other-tree' : traces ? 'traced' : 'untraced';
      if (profiling) await fresh.startProfile();
      return {
        client: freshClient,
        pid: fresh.pid,
        exported: () => sink.received(),
        stop: async () => {
          freshClient.close();
          if (profiling) await logProfile(fresh, name, freshClient.calls);
          await fresh.stop();
        },
      };
    },
    beforePhase: () => stats.reset(),
    afterPhase: (label) => stats.print(label, log),
  };
  const rows: ResultRow[] = [];
  const only = process.env.BENCH_OPS?.split(',');
  const table = {
    // First: it measures the data set as loaded, before any op writes or deletes.
    storage: storageOps,
    floor: graphqlFloorOps,
    // Only with BENCH_VERSUS_TREE: this tree beside another checkout.
    versus: versusOps,
    record: recordToolResultsOps,
    block: recallBlockOps,
    search: recallMemoryOps,
    path: recallToolResultOps,
    compact: compactMessagesOps,
    feedback: submitFeedbackOps,
    // Last: it ages and deletes the whole data set.
    sweep: retentionSweepOps,
  };
  for (const [name, ops] of Object.entries(table)) {
    if (only && !only.includes(name)) continue;
    const callsBefore = client.calls;
    if (profiling) await service.startProfile();
    for (const row of await ops(ctx)) {
      rows.push(row);
      log(`  ${row.op} (c=${row.concurrency}): service ${summary(row.service)}; raw ${summary(row.raw)}`);
    }
    if (profiling) await logProfile(service, name, client.calls - callsBefore);
  }

  const server = (await raw.query<{ v: string }>("select current_setting('server_version') as v")).rows[0].v;
  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    environment: { node: process.version, cpus: availableParallelism(), postgres: server },
    dataSet: { ...size, loadSeconds: Number(loadSeconds.toFixed(1)) },
    settings: { ...settings },
    rows,
  };
  log(`\n${formatTable(rows)}\n`);
  writeJson(RESULTS, report);
  log(`written ${RESULTS}`);
  return rows.every((row) => row.pass !== false);
}

/** Stops `service`'s profiler, writes its profile as `<name>.cpuprofile` and prints its summary. */
async function logProfile(service: RunningService, name: string, requests: number): Promise<void> {
  const file = join(PROFILES, `${name}.cpuprofile`);
  await service.stopProfile(file);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  log(`  profile of the service during "${name}" (${file}):`);
  log(indent(formatSummary(summarizeProfile(profile), requests), '    '));
}

async function main(): Promise<void> {
  await runToCompletion('bench', intFromEnv('BENCH_TIME_LIMIT_MS', 15 * 60_000), run, 'some targets were missed (see the table)');
}

void main();

/** BENCH_RLS=off: every table with row-level security gets it disabled (as the owner), for a side-by-side of its cost. */
async function disableRowLevelSecurity(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`do $$ declare t text; begin
      for t in select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relrowsecurity loop
        execute format('alter table %I disable row level security', t);
      end loop; end $$`);
  } finally {
    await client.end();
  }
}
