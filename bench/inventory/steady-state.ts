import { setTimeout as sleep } from 'node:timers/promises';
import { recordSerialized } from '../neighbours/calls';
import { GQL, toolResultItem } from '../soak-load';
import { graphqlBody, graphqlData, type InventoryContext, sendExpecting } from './measure';

/*
 * A replica that has served traffic a while: the tokenizer's merge cache (gpt-tokenizer keeps
 * 100,000 pre-tokens per thread) is full of other texts' words. Counting is then slower than on a
 * fresh process, several times so for some texts (a window over spaces: ~0.6 s fresh, 2–12 s
 * full), so every row is measured in that state: words never seen before are counted first on
 * the event loop (small writes, counted in place) and on the pools' threads (large writes).
 */

const DISTINCT_WORDS = 150_000;
/** Under OFF_THREAD_FROM_CHARS (32,768) a batch: counted on the event loop. */
const SMALL_BATCH = { items: 100, chars: 300 };
/** Over COUNTING_TASK_CHARS (131,072) each output: counted in the token-count pool's tasks. */
const LARGE_OUTPUT_CHARS = 400_000;

/** Word n in letters only (`w` and n in base 26): one pre-token of its own, never a digit group shared with others. */
function word(n: number): string {
  let letters = 'w';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 26)) letters += String.fromCharCode(97 + (rest % 26));
  return letters;
}

/** Words from the `from`th on, joined by spaces, about `chars` long; and where the next call starts. */
function words(from: number, chars: number): { text: string; next: number } {
  const parts: string[] = [];
  let n = from;
  for (let length = 0; length < chars; n++) {
    parts.push(word(n));
    length += parts[parts.length - 1].length + 1;
  }
  return { text: parts.join(' ').slice(0, chars), next: n };
}

/** A warm-up call, sent again after a second when the service answers RATE_LIMITED (its pools' threads still starting on a busy machine). */
async function retried(call: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await call();
      return;
    } catch (error) {
      if (attempt >= 10 || !String(error).includes('RATE_LIMITED')) throw error;
      await sleep(1_000);
    }
  }
}

export async function reachSteadyState(ctx: InventoryContext): Promise<void> {
  ctx.log(
    `filling the tokenizer's caches with ${DISTINCT_WORDS.toLocaleString('en-US')} distinct words, on the event loop and in the pools`,
  );
  const m = ctx.member;
  for (let n = 0; n < DISTINCT_WORDS;) {
    const input = Array.from({ length: SMALL_BATCH.items }, () => {
      const { text, next } = words(n, SMALL_BATCH.chars);
      n = next;
      return toolResultItem(m, m.conversations[0], 'warm_up', { query: 'warm-up', output: text });
    });
    await retried(() => sendExpecting(ctx, '/graphql', graphqlBody(GQL.record, { input }), { token: m.token }, graphqlData));
  }
  for (let n = DISTINCT_WORDS; n < 2 * DISTINCT_WORDS;) {
    const { text, next } = words(n, LARGE_OUTPUT_CHARS);
    n = next;
    await retried(() => recordSerialized(ctx.client, m, 'warm_up', [JSON.stringify(text)], m.conversations[0]));
  }
}
