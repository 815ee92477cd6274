import { runLoad, type Task } from '../load-runner';
import { seededUuid } from '../seeded';
import type { ConcreteFormat, MessageFormat } from '../../src/compaction/history/history.types';
import { ALL_FORMATS, traceIn } from '../../test/fixtures/history-formats.fixture';
import { type BenchContext, clean, errorNotes, type ResultRow } from './context';

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { messages messageFormat triggered compactedCount charsBefore charsAfter tokensBefore tokensAfter }
}`;

interface Compacted {
  messageFormat: MessageFormat;
  triggered: boolean;
  compactedCount: number;
  charsBefore: number;
  charsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
}

const TOKEN_RATIO = 0.25;
const P50_TARGET_MS = 20;
/** Each call tokenizes ~360 KB twice: a short, bounded run is enough. */
const MAX_CALLS = 60;

/** The settings docs/compaction-cost.md recommends: compact past 40k tokens down to 20k, write_file inputs too. */
const UNDER_PRESSURE = { triggerTokens: 40_000, targetTokens: 20_000, clearToolInputs: ['write_file'] };

interface Variant {
  name: string;
  settings: object;
  /** The ratio the row must reach: tokens after / before. */
  tokenRatio: (before: number) => number;
  label: string;
}

const VARIANTS: Variant[] = [
  { name: 'fixture trace', settings: {}, tokenRatio: () => TOKEN_RATIO, label: `tokens after ≤ ${TOKEN_RATIO * 100}% of before` },
  {
    name: 'fixture trace under pressure (trigger 40k, target 20k)',
    settings: UNDER_PRESSURE,
    tokenRatio: (before) => UNDER_PRESSURE.targetTokens / before,
    label: `tokens after ≤ ${UNDER_PRESSURE.targetTokens}`,
  },
];

/**
 * compactMessages on the fixture trace (~360 KB search result among small ones) in each message
 * format (AUTO-detected): the token ratio after/before, then the latency of repeated calls
 * (idempotent: same stubs, no new rows); then the same under pressure, with the recommended trigger
 * and target (the fewest replacements that reach the target, counted exactly). Its SQL (one lookup of stored results) is the same in
 * every format; the time is parsing, detecting and counting tokens, so no raw row stands beside it.
 */
export async function compactMessagesOps(ctx: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const variant of VARIANTS) {
    for (const format of ALL_FORMATS) rows.push(await compactRow(ctx, format, variant));
  }
  return rows;
}

async function compactRow(ctx: BenchContext, format: ConcreteFormat, variant: Variant): Promise<ResultRow> {
  const input = {
    spaceId: ctx.data.spaceId,
    conversationId: seededUuid(`compact-conversation-${format}`),
    messages: traceIn(format),
    ...variant.settings,
  };
  // Serialized once: the time measured is the service's, not the client's JSON.stringify of 400 KB.
  const body = JSON.stringify({ query: COMPACT, variables: { input } });
  const call = async (): Promise<Compacted> =>
    (await ctx.service.send<{ compactMessages: Compacted }>(body, ctx.tokens[0])).compactMessages;
  const first = await call();
  if (first.messageFormat !== format) throw new Error(`service: ${format} was detected as ${first.messageFormat}`);
  if (!first.triggered) throw new Error(`service: ${variant.name} did not trigger`);
  const task: Task = async () => {
    const again = await call();
    if (again.tokensAfter !== first.tokensAfter) throw new Error('service: a repeated call gave another wire view');
  };
  await ctx.beforePhase();
  const service = await runLoad(task, { concurrency: 1, warmupMs: 0, durationMs: ctx.settings.durationMs, maxRequests: MAX_CALLS });
  await ctx.afterPhase(`compactMessages ${variant.name} ${format} — service`);
  const ratio = first.tokensAfter / first.tokensBefore;
  const tokenTarget = variant.tokenRatio(first.tokensBefore);
  const notes = [
    ...errorNotes(['service', service]),
    `${format}: tokensBefore ${first.tokensBefore}, tokensAfter ${first.tokensAfter}; chars ${first.charsBefore} → ${first.charsAfter}; ${first.compactedCount} result(s) compacted`,
  ];
  return {
    op: `compactMessages, ${variant.name}, ${format}`,
    concurrency: 1,
    service,
    raw: null,
    ratio,
    ratioBasis: 'tokens',
    target: `${variant.label}, p50 ≤ ${P50_TARGET_MS} ms`,
    pass: clean(service) && ratio <= tokenTarget && service.p50 <= P50_TARGET_MS,
    notes,
  };
}
