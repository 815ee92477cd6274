import { AppError, ErrorCode } from '../../errors/app-error';
import { testConfig, tokenCounterFor } from '../../../../test/support/tool-results-service';
import { countJsonArray, jsonArrayPiece } from '../json-array-tokens';
import { OFF_THREAD_FROM_CHARS, type TokenCounter } from '../token-counter';
import { countTokens } from '../tokenizer';

/** A JSON payload of about `chars` characters whose words are not all alike (the tokenizer caches repeats). */
function payload(chars: number, seed = 1): object {
  const items: object[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const item = { id: `item-${seed}-${i}`, title: `Keyboard ${(i * 7919 + seed).toString(36)} with switches`, price: (i % 97) + 0.99 };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return { items };
}

describe('TokenCounter: token counts of large texts off the event loop (R-TN-10)', () => {
  let counter: TokenCounter;
  beforeAll(() => {
    counter = tokenCounterFor();
  });
  afterAll(() => counter.onModuleDestroy());

  it('R-TN-10: a large text gets exactly the count of the tokenizer, and the event loop turns while it is counted', async () => {
    const text = JSON.stringify(payload(600_000));
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    try {
      const tokens = await counter.count(text);
      // Counted in place, the whole count would run before the first tick could fire.
      expect(turns).toBeGreaterThan(0);
      expect(tokens).toBe(countTokens(text));
    } finally {
      clearInterval(ticker);
    }
  });

  it('R-TN-10: texts counted together get each its own exact count; small ones too', async () => {
    const texts = [JSON.stringify(payload(OFF_THREAD_FROM_CHARS * 2, 2)), 'a short one', ''];
    expect(await counter.countEach(texts)).toEqual(texts.map(countTokens));
    expect(await counter.countEach(['tiny', 'texts'])).toEqual([countTokens('tiny'), countTokens('texts')]);
  });

  it('R-TN-10: a large message list gets the JSON and the count countJsonArray gives', async () => {
    const messages = [
      { role: 'user', content: 'Find keyboards' },
      { role: 'tool', content: JSON.stringify(payload(80_000, 3)) },
      { role: 'assistant', content: 'Here they are' },
    ];
    const expected = countJsonArray(messages);
    expect(await counter.countJsonArray(messages, new WeakMap())).toEqual(expected);
  });

  it("R-TN-10: counts reused from texts seen lately are the tokenizer's counts, large and small, seen and new", async () => {
    const seen = JSON.stringify(payload(OFF_THREAD_FROM_CHARS * 2, 5));
    await counter.countCached([{ text: seen }]);
    const texts = [seen, JSON.stringify(payload(OFF_THREAD_FROM_CHARS, 6)), 'short', 'x'.repeat(300), ''].map((text) => ({ text }));
    expect(await counter.countCached(texts)).toEqual(texts.map(({ text }) => countTokens(text)));
    expect(await counter.countCached(texts)).toEqual(texts.map(({ text }) => countTokens(text)));
  });

  it('R-TN-10: a piece and a whole text that read alike keep their own counts', async () => {
    const part = `{"role":"tool","content":"${'z'.repeat(400)}"}`;
    const piece = jsonArrayPiece(part, false);
    // A whole text equal to what the piece's key is hashed from.
    const lookalike = { text: `${part},{"` };
    expect(await counter.countCached([piece, lookalike])).toEqual([countTokens(piece.text), countTokens(lookalike.text)]);
    expect(await counter.countCached([lookalike, piece])).toEqual([countTokens(lookalike.text), countTokens(piece.text)]);
  });

  it('R-TN-10: past its threads and queue the pool answers RATE_LIMITED instead of waiting without bound', async () => {
    const small = tokenCounterFor(testConfig({ TOKEN_COUNT_THREADS: '1', TOKEN_COUNT_QUEUE_MAX: '1' }));
    try {
      const text = JSON.stringify(payload(200_000, 4));
      const running = [small.count(text), small.count(text)];
      const refused = await small.count(text).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe(ErrorCode.RATE_LIMITED);
      expect((refused as AppError).message).toMatch(/retry/);
      await expect(Promise.all(running)).resolves.toEqual([countTokens(text), countTokens(text)]);
    } finally {
      await small.onModuleDestroy();
    }
  });
});
