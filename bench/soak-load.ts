import { randomBytes, randomUUID } from 'node:crypto';
import { signToken } from '../src/tenancy/token-signer';
import type { GraphqlClient } from './graphql-client';
import { BENCH_JWT_SECRET } from './harness';
import { pickIndex, seededRandom } from './seeded';

/*
 * The soak's mixed load (soak.ts): teams, each with a space, members and conversations, created
 * through the API; then loops that each act as one member and pick operations by weight.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export interface Member {
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

export const GQL = {
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
export function toolOutput(random: () => number, count: number): unknown {
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

/** One recordToolResults item of `m`'s, with a fresh message and tool-use id. */
export function toolResultItem(m: Member, conversationId: string, toolName: string, call: { query: string; output: unknown }) {
  return {
    spaceId: m.spaceId,
    conversationId,
    messageId: randomUUID(),
    toolUseId: `toolu_${randomBytes(10).toString('hex')}`,
    toolName,
    toolInput: { query: call.query },
    toolOutput: call.output,
  };
}

export async function createWorld(client: GraphqlClient, settings: { teams: number; usersPerTeam: number }): Promise<Member[]> {
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

/** Latencies of one op: all of them up to the cap, then a uniform sample (reservoir). */
export class OpStats {
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

export type OpName = 'record' | 'block' | 'search' | 'path' | 'pathLibrary' | 'history' | 'mcp' | 'feedback' | 'me';
/** How often each op is picked, relative to the others. */
const WEIGHTS: Record<OpName, number> = { record: 4, block: 3, search: 2, path: 2, pathLibrary: 1, history: 2, mcp: 2, feedback: 1, me: 1 };

export class Load {
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
    const input = Array.from({ length: 1 + pickIndex(random, 3) }, () =>
      toolResultItem(m, conversationId, TOOL_NAMES[pickIndex(random, TOOL_NAMES.length)], {
        query: WORDS[pickIndex(random, WORDS.length)],
        output: toolOutput(random, random() < 0.1 ? 400 : 30),
      }),
    );
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
export function mcpCaller(baseUrl: URL) {
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
