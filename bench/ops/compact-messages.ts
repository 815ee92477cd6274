import { runLoad, type Task } from '../load-runner';
import { seededUuid } from '../seeded';
import { buildProductResearchTrace } from '../../test/fixtures/agent-trace.fixture';
import { type BenchContext, clean, errorNotes, type ResultRow } from './context';

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { messages compactedCount charsBefore charsAfter tokensBefore tokensAfter }
}`;

interface Compacted {
  compactedCount: number;
  charsBefore: number;
  charsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
}

const TOKEN_RATIO = 0.25;
/** Each call tokenizes ~360 KB twice: a short, bounded run is enough. */
const MAX_CALLS = 60;

/**
 * compactMessages on the fixture trace (~360 KB search result among small ones): the token
 * ratio after/before, then the latency of repeated calls (idempotent: same stubs, no new rows).
 */
export async function compactMessagesOps(ctx: BenchContext): Promise<ResultRow[]> {
  const input = { spaceId: ctx.data.spaceId, conversationId: seededUuid('compact-conversation'), messages: buildProductResearchTrace() };
  const call = async (): Promise<Compacted> =>
    (await ctx.service.call<{ compactMessages: Compacted }>(COMPACT, { input }, ctx.tokens[0])).compactMessages;
  const first = await call();
  const task: Task = async () => {
    const again = await call();
    if (again.tokensAfter !== first.tokensAfter) throw new Error('service: a repeated call gave another wire view');
  };
  await ctx.beforePhase();
  const service = await runLoad(task, { concurrency: 1, warmupMs: 0, durationMs: ctx.settings.durationMs, maxRequests: MAX_CALLS });
  await ctx.afterPhase('compactMessages — service');
  const ratio = first.tokensAfter / first.tokensBefore;
  const notes = [
    ...errorNotes(['service', service]),
    `tokensBefore ${first.tokensBefore}, tokensAfter ${first.tokensAfter}; chars ${first.charsBefore} → ${first.charsAfter}; ${first.compactedCount} result(s) compacted`,
  ];
  return [
    {
      op: 'compactMessages, fixture trace',
      concurrency: 1,
      service,
      raw: null,
      ratio,
      ratioBasis: 'tokens',
      target: `tokens after ≤ ${TOKEN_RATIO * 100}% of before`,
      pass: clean(service) && ratio <= TOKEN_RATIO,
      notes,
    },
  ];
}
