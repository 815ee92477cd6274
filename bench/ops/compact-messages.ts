import { runLoad, type Task } from '../load-runner';
import { seededUuid } from '../seeded';
import type { ConcreteFormat, MessageFormat } from '../../src/ledger/history/history.types';
import { ALL_FORMATS, traceIn } from '../../test/fixtures/history-formats.fixture';
import { type BenchContext, clean, errorNotes, type ResultRow } from './context';

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { messages messageFormat compactedCount charsBefore charsAfter tokensBefore tokensAfter }
}`;

interface Compacted {
  messageFormat: MessageFormat;
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

/**
 * compactMessages on the fixture trace (~360 KB search result among small ones) in each message
 * format (AUTO-detected): the token ratio after/before, then the latency of repeated calls
 * (idempotent: same stubs, no new rows). Its SQL (one lookup of stored results) is the same in
 * every format; the time is parsing, detecting and counting tokens, so no raw row stands beside it.
 */
export async function compactMessagesOps(ctx: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const format of ALL_FORMATS) rows.push(await compactRow(ctx, format));
  return rows;
}

async function compactRow(ctx: BenchContext, format: ConcreteFormat): Promise<ResultRow> {
  const input = { spaceId: ctx.data.spaceId, conversationId: seededUuid(`compact-conversation-${format}`), messages: traceIn(format) };
  // Serialized once: the time measured is the service's, not the client's JSON.stringify of 400 KB.
  const body = JSON.stringify({ query: COMPACT, variables: { input } });
  const call = async (): Promise<Compacted> =>
    (await ctx.service.send<{ compactMessages: Compacted }>(body, ctx.tokens[0])).compactMessages;
  const first = await call();
  if (first.messageFormat !== format) throw new Error(`service: ${format} was detected as ${first.messageFormat}`);
  const task: Task = async () => {
    const again = await call();
    if (again.tokensAfter !== first.tokensAfter) throw new Error('service: a repeated call gave another wire view');
  };
  await ctx.beforePhase();
  const service = await runLoad(task, { concurrency: 1, warmupMs: 0, durationMs: ctx.settings.durationMs, maxRequests: MAX_CALLS });
  await ctx.afterPhase(`compactMessages ${format} — service`);
  const ratio = first.tokensAfter / first.tokensBefore;
  const notes = [
    ...errorNotes(['service', service]),
    `${format}: tokensBefore ${first.tokensBefore}, tokensAfter ${first.tokensAfter}; chars ${first.charsBefore} → ${first.charsAfter}; ${first.compactedCount} result(s) compacted`,
  ];
  return {
    op: `compactMessages, fixture trace, ${format}`,
    concurrency: 1,
    service,
    raw: null,
    ratio,
    ratioBasis: 'tokens',
    target: `tokens after ≤ ${TOKEN_RATIO * 100}% of before, p50 ≤ ${P50_TARGET_MS} ms`,
    pass: clean(service) && ratio <= TOKEN_RATIO && service.p50 <= P50_TARGET_MS,
    notes,
  };
}
