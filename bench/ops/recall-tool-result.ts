import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { type Task } from '../load-runner';
import { payloadVariants } from '../payloads';
import { BENCH_SEED, seededUuid } from '../seeded';
import { BIG_PAYLOAD_ITEM_3_PRICE, BIG_PAYLOAD_TOOL_USE_ID, bigPayloadText } from '../../test/fixtures/agent-trace.fixture';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';

const RECORD = `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { snapshots { memId sizeChars } } }`;
const RECALL = `query($m: String!, $p: String) { recallToolResult(memId: $m, jsonPath: $p) }`;
/** The service's scope: the user's own row in an allowed space (the conversation join). */
const RAW_PATH = `select r.tool_output #> $3::text[] as value from message_tool_results r join conversations c on c.id = r.conversation_id
  where r.user_id = $1 and c.space_id = any($4::uuid[]) and r.mem_id = $2`;
const FULL = `query($m: String!) { recallToolResult(memId: $m, format: FULL) }`;
/** The same first window, cut in PostgreSQL: what a FULL answer costs without the token bound. */
const RAW_WINDOW = `select substr(r.tool_output::text, 1, $4) as window from message_tool_results r join conversations c on c.id = r.conversation_id
  where r.user_id = $1 and c.space_id = any($3::uuid[]) and r.mem_id = $2`;
const PATH = 'items.3.price';
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
    const result = await ctx.raw.query<{ value: unknown }>(RAW_PATH, [userId, big.memId, segments, [ctx.data.spaceId]]);
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
    await fullWindowRow(ctx, big),
  ];
}

/** recallToolResult(format: FULL) on the big payload: its first token-bounded window, against a raw substr of as many chars. */
async function fullWindowRow(ctx: BenchContext, big: Recorded): Promise<ResultRow> {
  const userId = ctx.data.userIds[0];
  const first = (await ctx.service.call<{ recallToolResult: string }>(FULL, { m: big.memId }, ctx.tokens[0])).recallToolResult;
  const windowChars = first.lastIndexOf('\n[… more: ');
  if (windowChars <= 0) throw new Error('service: the FULL answer was not windowed');
  const rawTask: Task = async () => {
    const result = await ctx.raw.query<{ window: string }>(RAW_WINDOW, [userId, big.memId, [ctx.data.spaceId], windowChars]);
    if (result.rows[0]?.window.length !== windowChars) throw new Error('raw: unexpected window');
  };
  const serviceTask: Task = async () => {
    const { recallToolResult } = await ctx.service.call<{ recallToolResult: string }>(FULL, { m: big.memId }, ctx.tokens[0]);
    if (recallToolResult !== first) throw new Error('service: the window changed');
  };
  const op = `recallToolResult FULL, first window (${windowChars} chars of ${big.sizeChars})`;
  const { raw, service } = await measureSideBySide(ctx, op, rawTask, serviceTask, loadOptions(ctx.settings, 1));
  return {
    op,
    concurrency: 1,
    service,
    raw,
    ratio: service.p50 / raw.p50,
    ratioBasis: 'p50 latency',
    target: 'info (≤ 8000 tokens a window)',
    pass: clean(service, raw),
    notes: errorNotes(['service', service], ['raw', raw]),
  };
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
