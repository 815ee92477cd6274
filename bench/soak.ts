import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { GraphqlClient } from './graphql-client';
import { runToCompletion, startDatabase, startService, type Teardown } from './harness';
import { createWorld, Load, mcpCaller, type OpName } from './soak-load';
import { assessLeak, type HeapSample, type LeakAssessment } from './soak-verdict';
import { type HeapGrowth, heapGrowth, type MetricsSample, scrape } from './soak-watch';

/*
 * `npm run soak`: the mixed load from several teams for a long time, watching the service's memory
 * and event loop, with a leak verdict (bench/README.md "Soak"). Starts its own PostgreSQL and the
 * service in a process of its own (harness.ts), as `npm run bench` does.
 * Environment: SOAK_MINUTES (30), SOAK_TEAMS (4), SOAK_USERS_PER_TEAM (2), SOAK_CONCURRENCY (8),
 * SOAK_WARMUP_SECONDS (30), SOAK_SAMPLE_SECONDS (10), SOAK_GC_SECONDS (the run / 20, within 10..60),
 * SOAK_HEAP_SNAPSHOTS (1; 0: none), SOAK_KEEP_SNAPSHOTS (0; 1: keep the files), SOAK_OUT
 * (bench/results/soak), BENCH_LOG_LEVEL (warn).
 */

const MB = 1024 * 1024;
const log = (line: string): void => console.log(line);

function numberFromEnv(name: string, fallback: number, integer = true): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a ${integer ? 'non-negative integer' : 'non-negative number'}, not "${raw}"`);
  }
  return value;
}

interface SoakSettings {
  minutes: number;
  teams: number;
  usersPerTeam: number;
  concurrency: number;
  warmupSeconds: number;
  sampleSeconds: number;
  gcSeconds: number;
  heapSnapshots: boolean;
  keepSnapshots: boolean;
  out: string;
}

function settingsFromEnv(): SoakSettings {
  const minutes = numberFromEnv('SOAK_MINUTES', 30, false);
  if (minutes <= 0) throw new Error('SOAK_MINUTES must be above 0');
  return {
    minutes,
    teams: Math.max(1, numberFromEnv('SOAK_TEAMS', 4)),
    usersPerTeam: Math.max(1, numberFromEnv('SOAK_USERS_PER_TEAM', 2)),
    concurrency: Math.max(1, numberFromEnv('SOAK_CONCURRENCY', 8)),
    warmupSeconds: numberFromEnv('SOAK_WARMUP_SECONDS', 30),
    sampleSeconds: Math.max(1, numberFromEnv('SOAK_SAMPLE_SECONDS', 10)),
    // About twenty post-GC readings whatever the length, so the last half always has ten.
    gcSeconds: Math.max(1, numberFromEnv('SOAK_GC_SECONDS', Math.min(60, Math.max(10, Math.round((minutes * 60) / 20))))),
    heapSnapshots: numberFromEnv('SOAK_HEAP_SNAPSHOTS', 1) !== 0,
    keepSnapshots: numberFromEnv('SOAK_KEEP_SNAPSHOTS', 0) !== 0,
    out: process.env.SOAK_OUT ?? join(__dirname, 'results', 'soak'),
  };
}

interface SoakReport {
  generatedAt: string;
  environment: { node: string; cpus: number };
  settings: Omit<SoakSettings, 'out'>;
  measuredSeconds: number;
  ops: { op: OpName; calls: number; errors: number; busy: number; p50Ms: number; p99Ms: number; firstErrors: string[] }[];
  requests: number;
  errors: number;
  warmupErrors: number;
  memory: {
    /** RSS at start, read before the first heap snapshot (writing one takes memory the allocator keeps). */
    rssBeforeSnapshotMb: number;
    rssStartMb: number;
    /** RSS at the end, read before the end snapshot. */
    rssEndMb: number;
    rssMaxMb: number;
    heapUsedStartMb: number;
    heapUsedEndMb: number;
    heapUsedMaxMb: number;
    postGcHeapStartMb: number;
    postGcHeapEndMb: number;
  };
  eventLoop: { p99MedianMs: number; p99WorstMs: number; maxWorstMs: number; windows: number };
  leak: LeakAssessment;
  heapGrowth: HeapGrowth[] | null;
  samples: MetricsSample[];
  postGcSamples: HeapSample[];
  snapshots: { start: string; end: string } | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => Number((bytes / MB).toFixed(1));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};

async function run(teardown: Teardown, settings: SoakSettings): Promise<boolean> {
  log(
    `recall-ledger soak: ${settings.minutes} min after ${settings.warmupSeconds} s warm-up, ${settings.teams} teams × ` +
      `${settings.usersPerTeam} users, ${settings.concurrency} loops; samples every ${settings.sampleSeconds} s, post-GC heap every ${settings.gcSeconds} s`,
  );
  mkdirSync(settings.out, { recursive: true });
  const metricsToken = randomBytes(24).toString('base64url');
  const database = await startDatabase(teardown, false);
  // The soak reads /metrics as a protected deployment would: METRICS_TOKEN is exercised too.
  const service = await startService(teardown, database.url, database.folder, { METRICS_TOKEN: metricsToken });
  log(`service on ${service.baseUrl.origin} (pid ${service.pid})`);
  const client = new GraphqlClient(service.baseUrl, settings.concurrency * 2);
  teardown.add('close the HTTP agent', () => client.close());
  const members = await createWorld(client, settings);
  log(`${members.length} members in ${settings.teams} teams created through the API`);

  const load = new Load(client, mcpCaller(service.baseUrl), members);
  load.start(settings.concurrency);
  let loadStopped = false;
  teardown.add('stop the load', async () => {
    if (!loadStopped) await load.stop();
  });
  await sleep(settings.warmupSeconds * 1000);
  const warmup = load.reset();
  const warmupErrors = [...warmup.values()].reduce((s, o) => s + o.errors, 0);
  log(`warm-up done (${[...warmup.values()].reduce((s, o) => s + o.calls, 0)} calls, ${warmupErrors} errors)`);

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const files = {
    start: join(settings.out, `soak-${stamp}-start.heapsnapshot`),
    end: join(settings.out, `soak-${stamp}-end.heapsnapshot`),
  };
  let began = performance.now();
  const at = () => (performance.now() - began) / 1000;
  const samples: MetricsSample[] = [];
  const postGc: HeapSample[] = [];

  /**
   * The service's memory after a full collection, with the load held so that no request's memory
   * is in it; then a heap snapshot when `file` is given.
   */
  const heldHeap = async (file?: string): Promise<NodeJS.MemoryUsage> => {
    await load.pause();
    const memory = await service.collectGarbage();
    if (file && settings.heapSnapshots) {
      await service.heapSnapshot(file);
      log(`  heap snapshot ${file} (${(statSync(file).size / MB).toFixed(0)} MB)`);
    }
    // The collection and snapshot stopped the loop: a new delay window, so they are in no p99.
    await scrape(service.baseUrl, metricsToken);
    load.resume();
    return memory;
  };

  const atStart = await heldHeap(files.start);
  const startHeap = atStart.heapUsed;
  began = performance.now();
  postGc.push({ atSeconds: 0, heapUsedBytes: startHeap });
  log(`measuring: post-GC heap at start ${mb(startHeap)} MB, RSS ${mb(atStart.rss)} MB (before the snapshot)`);

  const durationMs = settings.minutes * 60_000;
  let nextGc = settings.gcSeconds;
  let nextReport = 60;
  while (at() * 1000 < durationMs) {
    await sleep(Math.min(settings.sampleSeconds * 1000, Math.max(0, durationMs - at() * 1000)));
    const values = await scrape(service.baseUrl, metricsToken);
    samples.push({
      atSeconds: at(),
      rssBytes: values.get('process_resident_memory_bytes') ?? Number.NaN,
      heapUsedBytes: values.get('nodejs_heap_size_used_bytes') ?? Number.NaN,
      eventLoopP99Ms: (values.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
      eventLoopMaxMs: (values.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
    });
    if (at() >= nextGc && at() * 1000 < durationMs) {
      postGc.push({ atSeconds: at(), heapUsedBytes: (await heldHeap()).heapUsed });
      nextGc = at() + settings.gcSeconds;
    }
    if (at() >= nextReport) {
      const last = samples[samples.length - 1];
      const calls = [...load.stats.values()].reduce((s, o) => s + o.calls, 0);
      const errors = [...load.stats.values()].reduce((s, o) => s + o.errors, 0);
      log(
        `  ${(at() / 60).toFixed(1)} min: ${calls} calls, ${errors} errors; RSS ${mb(last.rssBytes)} MB, heap ${mb(last.heapUsedBytes)} MB, ` +
          `post-GC ${mb(postGc[postGc.length - 1].heapUsedBytes)} MB, event-loop p99 ${last.eventLoopP99Ms.toFixed(1)} ms`,
      );
      nextReport += 60;
    }
  }
  const measuredSeconds = at();
  const atEnd = await heldHeap(files.end);
  const endHeap = atEnd.heapUsed;
  postGc.push({ atSeconds: measuredSeconds, heapUsedBytes: endHeap });
  await load.stop();
  loadStopped = true;

  const leak = assessLeak(startHeap, endHeap, postGc);
  let growth: HeapGrowth[] | null = null;
  if (settings.heapSnapshots) {
    growth = heapGrowth(files.start, files.end);
    if (!settings.keepSnapshots) for (const file of Object.values(files)) rmSync(file, { force: true });
  }
  const ops = [...load.stats.entries()].map(([op, s]) => ({
    op,
    calls: s.calls,
    errors: s.errors,
    busy: s.busy,
    p50Ms: Number(s.percentile(0.5).toFixed(1)),
    p99Ms: Number(s.percentile(0.99).toFixed(1)),
    firstErrors: s.firstErrors,
  }));
  const p99s = samples.map((s) => s.eventLoopP99Ms).filter(Number.isFinite);
  const { out: _out, ...reported } = settings;
  const report: SoakReport = {
    generatedAt: new Date().toISOString(),
    environment: { node: process.version, cpus: availableParallelism() },
    settings: reported,
    measuredSeconds: Math.round(measuredSeconds),
    ops,
    requests: ops.reduce((s, o) => s + o.calls, 0),
    errors: ops.reduce((s, o) => s + o.errors, 0),
    warmupErrors,
    memory: {
      rssBeforeSnapshotMb: mb(atStart.rss),
      rssStartMb: mb(samples[0]?.rssBytes ?? Number.NaN),
      rssEndMb: mb(atEnd.rss),
      rssMaxMb: mb(Math.max(...samples.map((s) => s.rssBytes))),
      heapUsedStartMb: mb(samples[0]?.heapUsedBytes ?? Number.NaN),
      heapUsedEndMb: mb(samples[samples.length - 1]?.heapUsedBytes ?? Number.NaN),
      heapUsedMaxMb: mb(Math.max(...samples.map((s) => s.heapUsedBytes))),
      postGcHeapStartMb: mb(startHeap),
      postGcHeapEndMb: mb(endHeap),
    },
    eventLoop: {
      p99MedianMs: Number(median(p99s).toFixed(1)),
      p99WorstMs: Number(Math.max(...p99s).toFixed(1)),
      maxWorstMs: Number(Math.max(...samples.map((s) => s.eventLoopMaxMs).filter(Number.isFinite)).toFixed(1)),
      windows: p99s.length,
    },
    leak,
    heapGrowth: growth,
    samples,
    postGcSamples: postGc,
    snapshots: settings.heapSnapshots && settings.keepSnapshots ? files : null,
  };
  const markdown = formatMarkdown(report);
  const base = join(settings.out, `soak-${stamp}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  log(`\n${markdown}`);
  log(`written ${base}.json and ${base}.md`);
  return leak.verdict !== 'leak suspected' && report.errors === 0;
}

function formatMarkdown(r: SoakReport): string {
  const s = r.settings;
  const lines = [
    `## Soak ${r.generatedAt} — ${r.leak.verdict}`,
    '',
    `Node ${r.environment.node}, ${r.environment.cpus} CPUs; ${s.minutes} min measured (${r.measuredSeconds} s) after ${s.warmupSeconds} s warm-up; ` +
      `${s.teams} teams × ${s.usersPerTeam} users, ${s.concurrency} concurrent loops; samples every ${s.sampleSeconds} s, post-GC heap every ${s.gcSeconds} s.`,
    '',
    `- **Requests**: ${r.requests}, **errors**: ${r.errors} (warm-up: ${r.warmupErrors})`,
    `- **RSS**: ${r.memory.rssBeforeSnapshotMb} MB after warm-up, before the start snapshot; ${r.memory.rssStartMb} MB at the first sample ` +
      `after it (writing a snapshot takes memory the allocator keeps); ${r.memory.rssEndMb} MB at the end, before the end snapshot; ` +
      `${r.memory.rssMaxMb} MB at most`,
    `- **Heap used** (sampled): ${r.memory.heapUsedStartMb} → ${r.memory.heapUsedEndMb} MB, ${r.memory.heapUsedMaxMb} MB at most`,
    `- **Post-GC heap** (load held, full collection): ${r.memory.postGcHeapStartMb} MB at start, ${r.memory.postGcHeapEndMb} MB at end`,
    `- **Event-loop delay p99** (per ${s.sampleSeconds}-s window): median ${r.eventLoop.p99MedianMs} ms, worst ${r.eventLoop.p99WorstMs} ms ` +
      `(longest single delay ${r.eventLoop.maxWorstMs} ms; ${r.eventLoop.windows} windows)`,
    `- **Leak verdict: ${r.leak.verdict}.** Rule: ${r.leak.rule}.`,
    '',
    '| op | calls | errors | busy answers | p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...r.ops.map((o) => `| ${o.op} | ${o.calls} | ${o.errors} | ${o.busy} | ${o.p50Ms} | ${o.p99Ms} |`),
  ];
  const errors = r.ops.flatMap((o) => o.firstErrors.map((e) => `- ${o.op}: ${e}`));
  if (errors.length > 0) lines.push('', 'First errors:', '', ...errors);
  if (r.heapGrowth) {
    lines.push(
      '',
      'Largest growth between the heap snapshots (self size):',
      '',
      '| kind | objects Δ | bytes Δ | bytes at end |',
      '| --- | ---: | ---: | ---: |',
      ...r.heapGrowth.map((g) => `| ${g.kind.replace(/\|/g, '\\|').slice(0, 60)} | ${g.countDelta} | ${g.bytesDelta} | ${g.endBytes} |`),
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const settings = settingsFromEnv();
  await runToCompletion(
    'soak',
    (settings.minutes * 60 + settings.warmupSeconds + 15 * 60) * 1000,
    (teardown) => run(teardown, settings),
    'the soak found errors or a suspected leak (see above)',
  );
}

void main();
