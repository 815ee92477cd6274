import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { type LoadResult, runLoad, type Task } from '../load-runner';
import { planJsonPath } from '../../src/lookup/json-path/plan-json-path';
import { payloadVariants } from '../payloads';
import { BENCH_SEED, seededUuid } from '../seeded';
import { BIG_PAYLOAD_ITEM_3_PRICE, BIG_PAYLOAD_TOOL_USE_ID, bigPayloadText } from '../../test/fixtures/agent-trace.fixture';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';
import { RAW_PATH } from './raw-path-statement';

const RECORD = `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { snapshots { memId sizeChars } } }`;
const RECALL = `query($m: String!, $p: String) { recallToolResult(memId: $m, jsonPath: $p) }`;
/** The same read on the bare stack, which takes the space from its caller (allowed spaces are the service's). */
const BARE_PATH = `query($m: String!, $p: String!, $s: String!) { pathValue(memId: $m, path: $p, spaceId: $s) }`;
/** A freshly started process runs unoptimized code for its first seconds (as graphql-floor.ts). */
const BARE_WARMUP_MS = 5000;
const FULL = `query($m: String!) { recallToolResult(memId: $m, format: FULL) }`;
const WALK = `query($m: String!, $o: Int) { recallToolResult(memId: $m, format: FULL, offset: $o) }`;
/** A window of the payload's text at an offset, cut in PostgreSQL. */
const RAW_WALK = `select substr(r.tool_output::text, $4, $5) as window from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  where r.team_id = $6 and r.user_id = $1 and c.space_id = any($3::uuid[]) and r.mem_id = $2`;
/** 32 × 363 KB: more than the served-text cache keeps (8,000,000 chars by default), so each call reads its payload. */
const COLD_COPIES = 32;
/** The same first window, cut in PostgreSQL: what a FULL answer costs without the token bound. */
const RAW_WINDOW = `select substr(r.tool_output::text, 1, $4) as window from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  where r.team_id = $5 and r.user_id = $1 and c.space_id = any($3::uuid[]) and r.mem_id = $2`;
const PATH = 'items.3.price';
/** The same value as models write it: RFC 9535, translated to a SQL/JSON path in PostgreSQL. */
const RFC_PATH = '$.items[3].price';
/** A node list: a filter PostgreSQL evaluates over every item. */
const FILTER_PATH = '$.items[?@.rating >= 4.5].product_id';
const RAW_SQL_PATH = `select jsonb_path_query_first(r.tool_output, $3::jsonpath) as value from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  where r.team_id = $5 and r.user_id = $1 and c.space_id = any($4::uuid[]) and r.mem_id = $2`;
const RAW_NODES = `select jsonb_path_query_array(r.tool_output, $3::jsonpath) as value from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  where r.team_id = $5 and r.user_id = $1 and c.space_id = any($4::uuid[]) and r.mem_id = $2`;
const RECALL_LINES = `query($m: String!, $s: Int) { recallToolResult(memId: $m, lineStart: $s) }`;
/** The first lines' window, cut in PostgreSQL: what a line answer costs without numbering and the token bound. */
const RAW_TEXT_WINDOW = `select substr(r.tool_output #>> '{}', 1, $4) as window from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  where r.team_id = $5 and r.user_id = $1 and c.space_id = any($3::uuid[]) and r.mem_id = $2`;
/** The `$` path's p50 may exceed the dotted path's by this much, in the same run. */
const RFC_PATH_RATIO = 1.2;
const FULL_WINDOW_NODE_CPU_MS = 5;
const FULL_WINDOW_RATIO = 3;
const LATENCY_RATIO = 2;
const RSS_CALLS = 400;
const MIB = 1024 * 1024;
/** Far below what holding the payloads would cost (400 × 360 KB as text alone is ~140 MiB). */
const RSS_GROWTH_LIMIT = 16 * MIB;

interface Recorded {
  memId: string;
  sizeChars: number;
}

/**
 * recallToolResult(jsonPath) on the ~360 KB fixture payload against the raw `#>` SELECT, at
 * concurrency 1; then the process RSS around a few hundred calls, on the big payload and on a
 * ~1 KB one for comparison.
 */
export async function recallToolResultOps(ctx: BenchContext): Promise<ResultRow[]> {
  const userId = ctx.data.userIds[0];
  const token = ctx.tokens[0];
  const big = await record(ctx, 'big', BIG_PAYLOAD_TOOL_USE_ID, 'search_products', JSON.parse(bigPayloadText()));
  const small = await record(ctx, 'small', 'toolu_bench_small_payload', 'search_products', payloadVariants(BENCH_SEED, 3)[2].toolOutput);
  const segments = PATH.split('.');

  const rawTask: Task = async () => {
    const result = await ctx.raw.query<{ value: unknown }>(RAW_PATH, [userId, big.memId, segments, [ctx.data.spaceId], ctx.data.teamId]);
    if (String(result.rows[0]?.value) !== BIG_PAYLOAD_ITEM_3_PRICE) throw new Error(`raw: unexpected ${String(result.rows[0]?.value)}`);
  };
  const serviceCall = (memId: string) => ctx.service.call<{ recallToolResult: string }>(RECALL, { m: memId, p: PATH }, token);
  const serviceTask: Task = async () => {
    const { recallToolResult } = await serviceCall(big.memId);
    if (recallToolResult !== BIG_PAYLOAD_ITEM_3_PRICE) throw new Error(`service: unexpected ${recallToolResult.slice(0, 80)}`);
  };

  const op = `recallToolResult jsonPath ${PATH} (${Math.round(big.sizeChars / 1024)} KB)`;
  const options = loadOptions(ctx.settings, 1);
  const { raw, service } = await measureSideBySide(ctx, `${op}`, rawTask, serviceTask, options);

  const concurrency = ctx.settings.concurrency;
  const smallRss = await rssAround(() => serviceCall(small.memId), concurrency);
  const bigRss = await rssAround(() => serviceCall(big.memId), concurrency);
  const ratio = service.p50 / raw.p50;
  const notes = [
    ...errorNotes(['service', service], ['raw', raw]),
    `RSS over ${RSS_CALLS} calls at ${concurrency} clients, ${Math.round(big.sizeChars / 1024)} KB payload: ${describe(bigRss)}`,
    `same on a ${small.sizeChars}-char payload: ${describe(smallRss)}`,
  ];
  const rssOk =
    bigRss.after - bigRss.before <= RSS_GROWTH_LIMIT && bigRss.peak - bigRss.before <= smallRss.peak - smallRss.before + RSS_GROWTH_LIMIT;
  const pass = clean(service, raw) && ratio <= LATENCY_RATIO && rssOk;
  return [
    { op, concurrency: 1, service, raw, ratio, ratioBasis: 'p50 latency', target: `≤ ${LATENCY_RATIO}× raw; RSS flat`, pass, notes },
    await barePathRow(ctx, big, service),
    await rfcPathRow(ctx, big, service),
    await filterRow(ctx, big),
    await fullWindowRow(ctx, big),
    await fullWalkRow(ctx, big),
    await fullColdRow(ctx),
    await linesRow(ctx),
  ];
}

/**
 * The dotted row's read through the bare stack (bare-app-process.ts: Nest, Apollo and the raw `#>`
 * statement, nothing of ours), against raw measured just before: what the framework alone costs on
 * this read, and how much of the service's gap to raw is ours.
 */
async function barePathRow(ctx: BenchContext, big: Recorded, service: LoadResult): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const segments = PATH.split('.');
  const options = loadOptions(ctx.settings, 1);
  const bareStack = await ctx.bareStack('express');
  try {
    const rawTask: Task = async () => {
      const result = await ctx.raw.query<{ value: unknown }>(RAW_PATH, [userId, big.memId, segments, [ctx.data.spaceId], ctx.data.teamId]);
      if (String(result.rows[0]?.value) !== BIG_PAYLOAD_ITEM_3_PRICE) throw new Error(`raw: unexpected ${String(result.rows[0]?.value)}`);
    };
    const bareTask: Task = async () => {
      const { pathValue } = await bareStack.client.call<{ pathValue: string | null }>(
        BARE_PATH,
        { m: big.memId, p: PATH, s: ctx.data.spaceId },
        ctx.tokens[0],
      );
      if (pathValue !== BIG_PAYLOAD_ITEM_3_PRICE) throw new Error(`bare: unexpected ${String(pathValue)}`);
    };
    const raw = await runLoad(rawTask, options);
    const bare = await bareStack.measured(() => runLoad(bareTask, { ...options, warmupMs: Math.max(options.warmupMs, BARE_WARMUP_MS) }));
    return {
      op: `recallToolResult jsonPath ${PATH}, the bare stack`,
      concurrency: 1,
      service: bare,
      raw,
      ratio: bare.p50 / raw.p50,
      ratioBasis: 'p50 latency',
      target: 'info',
      pass: clean(bare, raw) ? null : false,
      notes: [
        `the service's p50 (${service.p50.toFixed(2)} ms, the row above) is ${(service.p50 / bare.p50).toFixed(2)}× the bare stack's`,
        ...errorNotes(['bare', bare], ['raw', raw]),
      ],
    };
  } finally {
    await bareStack.stop();
  }
}

/** The dotted row's value asked in RFC 9535 form: its p50 against the dotted row's, measured just before; the raw SQL/JSON path beside it. */
async function rfcPathRow(ctx: BenchContext, big: Recorded, dotted: LoadResult): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const plan = planJsonPath(RFC_PATH);
  if (plan.kind !== 'database' || plan.selection.kind !== 'value') throw new Error(`${RFC_PATH} is not evaluated in PostgreSQL`);
  const sqlPath = plan.selection.sqlPath;
  const rawTask: Task = async () => {
    const result = await ctx.raw.query<{ value: unknown }>(RAW_SQL_PATH, [userId, big.memId, sqlPath, [ctx.data.spaceId], ctx.data.teamId]);
    if (String(result.rows[0]?.value) !== BIG_PAYLOAD_ITEM_3_PRICE) throw new Error(`raw: unexpected ${String(result.rows[0]?.value)}`);
  };
  const serviceTask: Task = async () => {
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(RECALL, { m: big.memId, p: RFC_PATH }, ctx.tokens[0]);
    if (recallToolResult !== BIG_PAYLOAD_ITEM_3_PRICE) throw new Error(`service: unexpected ${recallToolResult.slice(0, 80)}`);
  };
  const op = `recallToolResult jsonPath ${RFC_PATH} (${Math.round(big.sizeChars / 1024)} KB)`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  const ratio = service.p50 / dotted.p50;
  return {
    op,
    concurrency: 1,
    service,
    raw,
    ratio,
    ratioBasis: 'p50 latency',
    target: `p50 ≤ ${RFC_PATH_RATIO}× the dotted row's service p50 (${dotted.p50.toFixed(2)} ms); ratio shown against it`,
    pass: clean(service, raw) && ratio <= RFC_PATH_RATIO,
    notes: [
      ...errorNotes(['service', service], ['raw', raw]),
      `SQL/JSON path: ${sqlPath}`,
      `vs raw: ${(service.p50 / raw.p50).toFixed(2)}×`,
    ],
  };
}

/** A filter's node list on the big payload, against the same SQL/JSON path run raw. */
async function filterRow(ctx: BenchContext, big: Recorded): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const plan = planJsonPath(FILTER_PATH);
  if (plan.kind !== 'database' || plan.selection.kind !== 'nodes') throw new Error(`${FILTER_PATH} is not evaluated in PostgreSQL`);
  const sqlPath = plan.selection.sqlPath;
  const expected = (await ctx.raw.query<{ value: unknown[] }>(RAW_NODES, [userId, big.memId, sqlPath, [ctx.data.spaceId], ctx.data.teamId]))
    .rows[0].value;
  if (!Array.isArray(expected) || expected.length === 0) throw new Error(`raw: ${FILTER_PATH} selects nothing`);
  const rawTask: Task = async () => {
    const result = await ctx.raw.query<{ value: unknown[] }>(RAW_NODES, [userId, big.memId, sqlPath, [ctx.data.spaceId], ctx.data.teamId]);
    if (result.rows[0]?.value.length !== expected.length) throw new Error('raw: unexpected node count');
  };
  const serviceTask: Task = async () => {
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(
      RECALL,
      { m: big.memId, p: FILTER_PATH },
      ctx.tokens[0],
    );
    if ((JSON.parse(recallToolResult) as unknown[]).length !== expected.length) throw new Error('service: unexpected node count');
  };
  const op = `recallToolResult jsonPath ${FILTER_PATH} (${expected.length} nodes)`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  return latencyRow(op, service, raw, 'info', true, [`SQL/JSON path: ${sqlPath}`]);
}

/** A line range's first window of a 10,000-line log, against a raw substr of as many chars. */
async function linesRow(ctx: BenchContext): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const log = Array.from(
    { length: 10_000 },
    (_, i) => `2026-11-30T10:${String(i % 60).padStart(2, '0')}:00Z GET /api/items/${i} 200 ${(i % 97) / 10}ms`,
  ).join('\n');
  const recorded = await record(ctx, 'log', 'toolu_bench_log_lines', 'read_log', log);
  const first = (await ctx.service.call<{ recallToolResult: string }>(RECALL_LINES, { m: recorded.memId, s: 1 }, ctx.tokens[0]))
    .recallToolResult;
  const shownLines = first.split('\n').length - 1;
  const windowChars = log.split('\n').slice(0, shownLines).join('\n').length;
  const rawTask: Task = async () => {
    const result = await ctx.raw.query<{ window: string }>(RAW_TEXT_WINDOW, [
      userId,
      recorded.memId,
      [ctx.data.spaceId],
      windowChars,
      ctx.data.teamId,
    ]);
    if (result.rows[0]?.window.length !== windowChars) throw new Error('raw: unexpected window');
  };
  const serviceTask: Task = async () => {
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(
      RECALL_LINES,
      { m: recorded.memId, s: 1 },
      ctx.tokens[0],
    );
    if (recallToolResult !== first) throw new Error('service: the window changed');
  };
  const op = `recallToolResult lineStart=1, first window (${shownLines} of 10000 lines, ${Math.round(log.length / 1024)} KB)`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  return latencyRow(op, service, raw, 'info (≤ 8000 tokens a window)', true);
}

/** A concurrency-1 row whose ratio is the service's p50 over raw's; `pass` adds to both runs being clean. */
function latencyRow(op: string, service: LoadResult, raw: LoadResult, target: string, pass: boolean, notes: string[] = []): ResultRow {
  return {
    op,
    concurrency: 1,
    service,
    raw,
    ratio: service.p50 / raw.p50,
    ratioBasis: 'p50 latency',
    target,
    pass: clean(service, raw) && pass,
    notes: [...errorNotes(['service', service], ['raw', raw]), ...notes],
  };
}

/** recallToolResult(format: FULL) on the big payload: its first token-bounded window, against a raw substr of as many chars. */
async function fullWindowRow(ctx: BenchContext, big: Recorded): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const first = (await ctx.service.call<{ recallToolResult: string }>(FULL, { m: big.memId }, ctx.tokens[0])).recallToolResult;
  const windowChars = first.lastIndexOf('\n[… more: ');
  if (windowChars <= 0) throw new Error('service: the FULL answer was not windowed');
  const rawTask: Task = async () => {
    const result = await ctx.raw.query<{ window: string }>(RAW_WINDOW, [
      userId,
      big.memId,
      [ctx.data.spaceId],
      windowChars,
      ctx.data.teamId,
    ]);
    if (result.rows[0]?.window.length !== windowChars) throw new Error('raw: unexpected window');
  };
  const serviceTask: Task = async () => {
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(FULL, { m: big.memId }, ctx.tokens[0]);
    if (recallToolResult !== first) throw new Error('service: the window changed');
  };
  const op = `recallToolResult FULL, first window (${windowChars} chars of ${big.sizeChars})`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  const cpuOk = service.nodeCpuMsPerRequest <= FULL_WINDOW_NODE_CPU_MS;
  const target = `Node CPU ≤ ${FULL_WINDOW_NODE_CPU_MS} ms a call; p50 ≤ ${FULL_WINDOW_RATIO}× raw`;
  return latencyRow(op, service, raw, target, cpuOk && service.p50 / raw.p50 <= FULL_WINDOW_RATIO, [
    `service Node CPU ${service.nodeCpuMsPerRequest.toFixed(2)} ms a call`,
  ]);
}

/** A whole walk of the big payload, window after window and round again (the served text kept), against raw substrs of the same windows. */
async function fullWalkRow(ctx: BenchContext, big: Recorded): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const windows: { offset: number; answer: string; chars: number }[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const answer: string = (await ctx.service.call<{ recallToolResult: string }>(WALK, { m: big.memId, o: offset }, ctx.tokens[0]))
      .recallToolResult;
    const next = /offset=(\d+)\); chars/.exec(answer);
    const chars = next === null ? answer.length : answer.lastIndexOf('\n[… more: ');
    windows.push({ offset, answer, chars });
    offset = next === null ? null : Number(next[1]);
  }
  const rawTask: Task = async (_worker, seq) => {
    const { offset, chars } = windows[seq % windows.length];
    const result = await ctx.raw.query<{ window: string }>(RAW_WALK, [
      userId,
      big.memId,
      [ctx.data.spaceId],
      offset + 1,
      chars,
      ctx.data.teamId,
    ]);
    if (result.rows[0]?.window.length !== chars) throw new Error('raw: unexpected window');
  };
  const serviceTask: Task = async (_worker, seq) => {
    const { offset, answer } = windows[seq % windows.length];
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(WALK, { m: big.memId, o: offset }, ctx.tokens[0]);
    if (recallToolResult !== answer) throw new Error('service: a window changed');
  };
  const op = `recallToolResult FULL, a walk (${windows.length} windows of ${big.sizeChars} chars, round and round)`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  return latencyRow(op, service, raw, 'info', true, [`service Node CPU ${service.nodeCpuMsPerRequest.toFixed(2)} ms a call`]);
}

/** The first window of payloads not kept: copies of the big payload in turn, more of them than the served-text cache holds. */
async function fullColdRow(ctx: BenchContext): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const payload = JSON.parse(bigPayloadText()) as unknown;
  const copies: { memId: string; first: string; chars: number }[] = [];
  for (let i = 0; i < COLD_COPIES; i++) {
    const copy = await record(ctx, `big-copy-${i}`, `toolu_bench_big_copy_${i}`, 'search_products', payload);
    const first = (await ctx.service.call<{ recallToolResult: string }>(FULL, { m: copy.memId }, ctx.tokens[0])).recallToolResult;
    copies.push({ memId: copy.memId, first, chars: first.lastIndexOf('\n[… more: ') });
  }
  const rawTask: Task = async (_worker, seq) => {
    const { memId, chars } = copies[seq % copies.length];
    const result = await ctx.raw.query<{ window: string }>(RAW_WINDOW, [userId, memId, [ctx.data.spaceId], chars, ctx.data.teamId]);
    if (result.rows[0]?.window.length !== chars) throw new Error('raw: unexpected window');
  };
  const serviceTask: Task = async (_worker, seq) => {
    const { memId, first } = copies[seq % copies.length];
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(FULL, { m: memId }, ctx.tokens[0]);
    if (recallToolResult !== first) throw new Error('service: the window changed');
  };
  const op = `recallToolResult FULL, first window, cold (${COLD_COPIES} payloads in turn, none kept)`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  return latencyRow(op, service, raw, 'info', true, [`service Node CPU ${service.nodeCpuMsPerRequest.toFixed(2)} ms a call`]);
}

async function record(ctx: BenchContext, name: string, toolUseId: string, toolName: string, toolOutput: unknown): Promise<Recorded> {
  const input = [
    {
      spaceId: ctx.data.spaceId,
      conversationId: seededUuid(`${name}-payload-conversation`),
      messageId: seededUuid(`${name}-payload-message`),
      toolUseId,
      toolName,
      toolInput: { query: 'mechanical keyboard' },
      toolOutput,
    },
  ];
  const data = await ctx.service.call<{ recordToolResults: { snapshots: Recorded[] } }>(RECORD, { input }, ctx.tokens[0]);
  return data.recordToolResults.snapshots[0];
}

interface RssSample {
  before: number;
  after: number;
  peak: number;
}

/** Process RSS (service and bench share it) after a full GC, before and after the calls, and its peak while they run. */
async function rssAround(call: () => Promise<unknown>, concurrency: number): Promise<RssSample> {
  await settle();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next++ < RSS_CALLS) await call();
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  await settle();
  return { before, after: process.memoryUsage.rss(), peak };
}

/** Full GCs with a pause between, so freed pages have gone back before RSS is read. */
async function settle(): Promise<void> {
  const gc = exposedGc();
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let gcFunction: (() => void) | undefined;
function exposedGc(): () => void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  return gcFunction;
}

function describe(s: RssSample): string {
  const mib = (n: number) => `${(n / MIB).toFixed(1)} MiB`;
  return `before ${mib(s.before)}, after ${mib(s.after)} (${s.after >= s.before ? '+' : ''}${mib(s.after - s.before)}), peak +${mib(s.peak - s.before)}`;
}
