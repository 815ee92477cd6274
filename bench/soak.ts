import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { signToken } from '../src/tenancy/token-signer';
import { GraphqlClient } from './graphql-client';
import { BENCH_JWT_SECRET, startDatabase, startService, Teardown } from './harness';
import { pickIndex, seededRandom } from './seeded';
import { assessLeak, type HeapSample, type LeakAssessment } from './soak-verdict';

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

// ---------------------------------------------------------------------------------------------
// The world: teams, each with a space, members and conversations, created through the API.

interface Member {
  team: number;
  teamId: string;
  userId: string;
  spaceId: string;
  token: string;
  conversations: string[];
  /** Those with a recorded result: the reads by conversation ask only these (the others do not exist yet). */
  usedConversations: string[];
  /** Recently recorded mem ids (a conversation keeps 200 snapshots; these are far from the cap). */
  memIds: string[];
  /** Recent recall events, for feedback. */
  recallEventIds: string[];
}

const TOOL_NAMES = ['query_orders', 'fetch_inventory', 'search_tickets', 'read_invoice', 'list_shipments', 'get_forecast'];
const WORDS = ['invoice', 'shipment', 'widget', 'gasket', 'turbine', 'harbor', 'orchid', 'falcon', 'copper', 'meadow', 'signal', 'lantern'];
const CONVERSATIONS_PER_MEMBER = 10;
const RING = 100;

const GQL = {
  createSpace: `mutation($n: String!) { createSpace(name: $n) { id } }`,
  addMember: `mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id } }`,
  enableFeedback: `mutation { setFeatureFlag(key: "recall_feedback_enabled", enabled: true) { enabled } }`,
  record: `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { createdCount snapshots { memId } } }`,
  block: `query($c: ID!) { recallBlock(conversationId: $c) { text tokens injected } }`,
  search: `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q, limit: 5) { recallEventId results { ref { id rank } line } } }`,
  path: `query($m: String!, $p: String) { recallToolResult(memId: $m, jsonPath: $p) }`,
  history: `query($c: ID, $first: Int) { toolResultHistory(conversationId: $c, first: $first) { edges { node { memId toolName sizeChars toolOutput } } } }`,
  feedback: `mutation($input: RecallFeedbackBatchInput!) { submitRecallFeedback(input: $input) { recordedCount error { code } } }`,
  me: `{ me { userId teamId } }`,
};

function remember(ring: string[], value: string): void {
  ring.push(value);
  if (ring.length > RING) ring.shift();
}

/** A tool output with `count` items whose skus start with A..D (the library JSONPath filters on them). */
function toolOutput(random: () => number, count: number): unknown {
  const word = () => WORDS[pickIndex(random, WORDS.length)];
  return {
    source: `${word()} report`,
    items: Array.from({ length: count }, (_, i) => ({
      sku: `${'ABCD'[pickIndex(random, 4)]}${1000 + i}`,
      name: `${word()} ${word()}`,
      price: Math.round(random() * 10_000) / 100,
      qty: pickIndex(random, 50),
      note: `${word()} ${word()} ${word()} for the ${word()} order, checked against the ${word()} list`,
    })),
  };
}

async function createWorld(client: GraphqlClient, settings: SoakSettings): Promise<Member[]> {
  const members: Member[] = [];
  const sign = (userId: string, teamId: string, scopes: string[]) =>
    signToken({ userId, teamId, scopes, secret: BENCH_JWT_SECRET, expiresInSeconds: 24 * 3600 });
  for (let team = 0; team < settings.teams; team++) {
    const teamId = randomUUID();
    const admin = await sign(randomUUID(), teamId, ['admin']);
    const spaceId = (await client.call<{ createSpace: { id: string } }>(GQL.createSpace, { n: `soak ${team}` }, admin)).createSpace.id;
    await client.call(GQL.enableFeedback, {}, admin);
    for (let u = 0; u < settings.usersPerTeam; u++) {
      const userId = randomUUID();
      await client.call(GQL.addMember, { s: spaceId, u: userId }, admin);
      const token = await sign(userId, teamId, ['memory:read', 'memory:write', 'feedback:write']);
      const conversations = Array.from({ length: CONVERSATIONS_PER_MEMBER }, () => randomUUID());
      members.push({ team, teamId, userId, spaceId, token, conversations, usedConversations: [], memIds: [], recallEventIds: [] });
    }
  }
  return members;
}

// ---------------------------------------------------------------------------------------------
// The mixed load.

/** Latencies of one op: all of them up to the cap, then a uniform sample (reservoir). */
class OpStats {
  calls = 0;
  errors = 0;
  /** Answers that were the service's "busy, retry" text: not errors, but worth counting. */
  busy = 0;
  readonly firstErrors: string[] = [];
  private readonly latencies: number[] = [];

  record(ms: number, random: () => number): void {
    this.calls++;
    if (this.latencies.length < 50_000) this.latencies.push(ms);
    else {
      const slot = Math.floor(random() * this.calls);
      if (slot < this.latencies.length) this.latencies[slot] = ms;
    }
  }

  fail(message: string): void {
    this.calls++;
    this.errors++;
    const short = message.slice(0, 200);
    if (this.firstErrors.length < 3 && !this.firstErrors.includes(short)) this.firstErrors.push(short);
  }

  percentile(q: number): number {
    if (this.latencies.length === 0) return Number.NaN;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  }
}

type OpName = 'record' | 'block' | 'search' | 'path' | 'pathLibrary' | 'history' | 'mcp' | 'feedback' | 'me';
/** How often each op is picked, relative to the others. */
const WEIGHTS: Record<OpName, number> = { record: 4, block: 3, search: 2, path: 2, pathLibrary: 1, history: 2, mcp: 2, feedback: 1, me: 1 };

class Load {
  stats = new Map<OpName, OpStats>();
  private stopped = false;
  private loops: Promise<void>[] = [];
  /** While set, loops park before their next call; `parked` counts them. */
  private paused: { resume: Promise<void>; release: () => void } | null = null;
  private parked = 0;

  constructor(
    private readonly client: GraphqlClient,
    private readonly mcp: (member: Member, tool: string, args: Record<string, unknown>) => Promise<string>,
    private readonly members: Member[],
  ) {
    this.reset();
  }

  /** Fresh counters: the warm-up's are dropped. */
  reset(): Map<OpName, OpStats> {
    const previous = this.stats;
    this.stats = new Map((Object.keys(WEIGHTS) as OpName[]).map((op) => [op, new OpStats()]));
    return previous;
  }

  start(concurrency: number): void {
    this.loops = Array.from({ length: concurrency }, (_, worker) => this.loop(worker));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.resume();
    await Promise.all(this.loops);
  }

  /**
   * Lets the calls in flight finish and holds the next ones: a heap snapshot stops the service for
   * seconds, and connections idle that long are closed under the clients' feet (ECONNRESET).
   */
  async pause(): Promise<void> {
    if (!this.paused) {
      let release!: () => void;
      const resume = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.paused = { resume, release };
    }
    while (this.parked < this.loops.length) await sleep(20);
  }

  resume(): void {
    this.paused?.release();
    this.paused = null;
  }

  private async loop(worker: number): Promise<void> {
    const random = seededRandom(20261202 + worker);
    const member = this.members[worker % this.members.length];
    const ops = (Object.keys(WEIGHTS) as OpName[]).flatMap((op) => Array<OpName>(WEIGHTS[op]).fill(op));
    // Something to read before the first reads.
    await this.run('record', random, () => this.record(member, random));
    while (!this.stopped) {
      if (this.paused) {
        this.parked++;
        await this.paused.resume;
        this.parked--;
        continue;
      }
      const op = ops[pickIndex(random, ops.length)];
      await this.run(op, random, () => this.task(op, member, random));
    }
  }

  private async run(op: OpName, random: () => number, task: () => Promise<string | void>): Promise<void> {
    const stats = this.stats.get(op)!;
    const started = performance.now();
    try {
      const answer = await task();
      stats.record(performance.now() - started, random);
      if (typeof answer === 'string' && /busy/i.test(answer) && answer.startsWith('[')) stats.busy++;
    } catch (error) {
      stats.fail(error instanceof Error ? error.message : String(error));
      // A failing service must not be hammered in a tight loop.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private task(op: OpName, m: Member, random: () => number): Promise<string | void> {
    const memId = m.memIds[pickIndex(random, m.memIds.length)];
    const conversation = m.usedConversations[pickIndex(random, m.usedConversations.length)];
    const word = WORDS[pickIndex(random, WORDS.length)];
    switch (op) {
      case 'record':
        return this.record(m, random);
      case 'block':
        return this.client.call(GQL.block, { c: conversation }, m.token).then(() => undefined);
      case 'search':
        return this.client.call<{ recallMemory: { recallEventId: string } }>(GQL.search, { s: m.spaceId, q: word }, m.token).then((d) => {
          remember(m.recallEventIds, d.recallMemory.recallEventId);
        });
      case 'path':
        return this.client
          .call<{ recallToolResult: string }>(GQL.path, { m: memId, p: '$.items[2].price' }, m.token)
          .then((d) => d.recallToolResult);
      case 'pathLibrary':
        // match() is not PostgreSQL's: the service evaluates it itself.
        return this.client
          .call<{ recallToolResult: string }>(GQL.path, { m: memId, p: "$.items[?match(@.sku,'A.*')].price" }, m.token)
          .then((d) => d.recallToolResult);
      case 'history':
        return this.client.call(GQL.history, { c: conversation, first: 5 }, m.token).then(() => undefined);
      case 'mcp':
        return random() < 0.5
          ? this.mcp(m, 'recall_tool_result', { mem_id: memId, json_path: '$.items[1].sku' })
          : this.mcp(m, 'recall_memory', { space_id: m.spaceId, query: word });
      case 'feedback':
        return this.feedback(m, random);
      case 'me':
        return this.client.call(GQL.me, {}, m.token).then(() => undefined);
    }
  }

  private async record(m: Member, random: () => number): Promise<void> {
    const conversationId = m.conversations[pickIndex(random, m.conversations.length)];
    // One in ten is a larger document (~60 KB), the rest ~5 KB.
    const input = Array.from({ length: 1 + pickIndex(random, 3) }, () => ({
      spaceId: m.spaceId,
      conversationId,
      messageId: randomUUID(),
      toolUseId: `toolu_${randomBytes(10).toString('hex')}`,
      toolName: TOOL_NAMES[pickIndex(random, TOOL_NAMES.length)],
      toolInput: { query: WORDS[pickIndex(random, WORDS.length)] },
      toolOutput: toolOutput(random, random() < 0.1 ? 400 : 30),
    }));
    const data = await this.client.call<{ recordToolResults: { snapshots: { memId: string }[] } }>(GQL.record, { input }, m.token);
    for (const s of data.recordToolResults.snapshots) remember(m.memIds, s.memId);
    if (!m.usedConversations.includes(conversationId)) m.usedConversations.push(conversationId);
  }

  private async feedback(m: Member, random: () => number): Promise<string | void> {
    // Nothing to judge yet: a search first, which records the recall event feedback needs.
    if (m.recallEventIds.length === 0) return this.task('search', m, random);
    const recalls = Array.from({ length: 1 + pickIndex(random, 3) }, () => ({
      recallEventId: m.recallEventIds[pickIndex(random, m.recallEventIds.length)],
      used: random() < 0.7,
      quality: 'MEDIUM',
    }));
    const data = await this.client.call<{ submitRecallFeedback: { error: { code: string } | null } }>(
      GQL.feedback,
      { input: { recalls } },
      m.token,
    );
    if (data.submitRecallFeedback.error) throw new Error(`feedback refused: ${data.submitRecallFeedback.error.code}`);
  }
}

/** A tools/call over MCP's HTTP transport (stateless, JSON answers); the text, or throws on an error. */
function mcpCaller(baseUrl: URL) {
  let id = 0;
  return async (member: Member, tool: string, args: Record<string, unknown>): Promise<string> => {
    const res = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        authorization: `Bearer ${member.token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: tool, arguments: args } }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`MCP HTTP ${res.status}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as { error?: { message: string }; result?: { isError?: boolean; content?: { text?: string }[] } };
    if (body.error) throw new Error(`MCP error: ${body.error.message}`);
    const answer = body.result?.content?.map((c) => c.text ?? '').join('') ?? '';
    if (body.result?.isError) throw new Error(`MCP tool error: ${answer.slice(0, 200)}`);
    return answer;
  };
}

// ---------------------------------------------------------------------------------------------
// Watching the service.

interface MetricsSample {
  atSeconds: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** p99 of the event-loop delay since the previous scrape (prom-client resets it at each). */
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
}

/** The unlabelled samples of a Prometheus text page, by metric name. */
function parsePrometheus(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*) (\S+)$/.exec(line);
    if (match) values.set(match[1], Number(match[2]));
  }
  return values;
}

async function scrape(baseUrl: URL, token: string): Promise<Map<string, number>> {
  const res = await fetch(new URL('/metrics', baseUrl), {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parsePrometheus(await res.text());
}

interface HeapGrowth {
  kind: string;
  countDelta: number;
  bytesDelta: number;
  endBytes: number;
}

/** Objects by kind (constructor name for objects and closures, V8's type otherwise): count and self size. */
function heapCensus(file: string): Map<string, { count: number; bytes: number }> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const census = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const t = types[snapshot.nodes[i + type]];
    const kind =
      t === 'object' || t === 'closure' ? `${t === 'closure' ? 'closure ' : ''}${snapshot.strings[snapshot.nodes[i + name]]}` : `(${t})`;
    const entry = census.get(kind) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += snapshot.nodes[i + size];
    census.set(kind, entry);
  }
  return census;
}

function heapGrowth(startFile: string, endFile: string, top = 10): HeapGrowth[] {
  const start = heapCensus(startFile);
  const end = heapCensus(endFile);
  const kinds = new Set([...start.keys(), ...end.keys()]);
  return [...kinds]
    .map((kind) => {
      const a = start.get(kind) ?? { count: 0, bytes: 0 };
      const b = end.get(kind) ?? { count: 0, bytes: 0 };
      return { kind, countDelta: b.count - a.count, bytesDelta: b.bytes - a.bytes, endBytes: b.bytes };
    })
    .sort((x, y) => y.bytesDelta - x.bytesDelta)
    .slice(0, top);
}

// ---------------------------------------------------------------------------------------------
// The run.

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
  const teardown = new Teardown();
  let stopped: number | undefined;
  const stop = (code: number) => () => {
    stopped ??= code;
    void teardown.run().finally(() => process.exit(code));
  };
  process.once('SIGINT', stop(130));
  process.once('SIGTERM', stop(143));
  const limitMs = (settings.minutes * 60 + settings.warmupSeconds + 15 * 60) * 1000;
  const watchdog = setTimeout(() => {
    console.error(`soak: over the ${Math.round(limitMs / 1000)} s limit, stopping`);
    stop(2)();
  }, limitMs);
  let code = 1;
  try {
    code = (await run(teardown, settings)) ? 0 : 1;
    if (code !== 0) log('the soak found errors or a suspected leak (see above)');
  } catch (error) {
    if (stopped === undefined) console.error(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    clearTimeout(watchdog);
    await teardown.run();
  }
  process.exit(stopped ?? code);
}

void main();
