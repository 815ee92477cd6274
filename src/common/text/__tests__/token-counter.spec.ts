import { AppError, ErrorCode } from '../../errors/app-error';
import { testConfig, tokenCounterFor } from '../../../../test/support/tool-results-service';
import { countJsonArray, jsonArrayPiece } from '../json-array-tokens';
import { COUNTING_TASK_CHARS, OFF_THREAD_FROM_CHARS, type TokenCounter } from '../token-counter';
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

const TEAM = 'team-a';

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
      const tokens = await counter.count(TEAM, text);
      // Counted in place, the whole count would run before the first tick could fire.
      expect(turns).toBeGreaterThan(0);
      expect(tokens).toBe(countTokens(text));
    } finally {
      clearInterval(ticker);
    }
  });

  it('R-TN-10: texts counted together get each its own exact count; small ones too', async () => {
    const texts = [JSON.stringify(payload(OFF_THREAD_FROM_CHARS * 2, 2)), 'a short one', ''];
    expect(await counter.countEach(TEAM, texts)).toEqual(texts.map(countTokens));
    expect(await counter.countEach(TEAM, ['tiny', 'texts'])).toEqual([countTokens('tiny'), countTokens('texts')]);
  });

  it('R-TN-10: a large message list gets the JSON and the count countJsonArray gives', async () => {
    const messages = [
      { role: 'user', content: 'Find keyboards' },
      { role: 'tool', content: JSON.stringify(payload(80_000, 3)) },
      { role: 'assistant', content: 'Here they are' },
    ];
    const expected = countJsonArray(messages);
    expect(await counter.countJsonArray(TEAM, messages, new WeakMap())).toEqual(expected);
  });

  it('R-TN-10: a long history is serialized and hashed in slices: the event loop turns between them even when every count is known', async () => {
    const history = Array.from({ length: 4_000 }, (_, i) => ({ role: 'user', content: `message ${i} ${'lorem ipsum '.repeat(30)}` }));
    const expected = await counter.countJsonArray(TEAM, history, new WeakMap());
    // Every piece is now known: nothing waits on a thread, so only the slicing lets a turn come.
    let turns = 0;
    const ticker = setImmediate(() => (turns += 1));
    try {
      expect(await counter.countJsonArray(TEAM, history, new WeakMap())).toEqual(expected);
      expect(turns).toBe(1);
    } finally {
      clearImmediate(ticker);
    }
    expect(expected).toEqual(countJsonArray(history));
  });

  it("R-TN-10: counts reused from texts seen lately are the tokenizer's counts, large and small, seen and new", async () => {
    const seen = JSON.stringify(payload(OFF_THREAD_FROM_CHARS * 2, 5));
    await counter.countCached(TEAM, [{ text: seen }]);
    const texts = [seen, JSON.stringify(payload(OFF_THREAD_FROM_CHARS, 6)), 'short', 'x'.repeat(300), ''].map((text) => ({ text }));
    expect(await counter.countCached(TEAM, texts)).toEqual(texts.map(({ text }) => countTokens(text)));
    expect(await counter.countCached(TEAM, texts)).toEqual(texts.map(({ text }) => countTokens(text)));
  });

  it('R-TN-10: a piece and a whole text that read alike keep their own counts', async () => {
    const part = `{"role":"tool","content":"${'z'.repeat(400)}"}`;
    const piece = jsonArrayPiece(part, false);
    // A whole text equal to what the piece's key is hashed from.
    const lookalike = { text: `${part},{"` };
    expect(await counter.countCached(TEAM, [piece, lookalike])).toEqual([countTokens(piece.text), countTokens(lookalike.text)]);
    expect(await counter.countCached(TEAM, [lookalike, piece])).toEqual([countTokens(lookalike.text), countTokens(piece.text)]);
  });

  it('R-TN-10: past its threads and queue the pool answers RATE_LIMITED instead of waiting without bound', async () => {
    const small = tokenCounterFor(
      testConfig({ TOKEN_COUNT_THREADS: '1', TOKEN_COUNT_QUEUE_MAX: '1', TOKEN_COUNT_QUEUE_WAIT_MS: '600000' }),
    );
    try {
      const text = JSON.stringify(payload(200_000, 4));
      // One team may hold half of threads plus queue: two teams fill both.
      const running = [small.count('team-a', text), small.count('team-b', text)];
      const refused = await small.count('team-c', text).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe(ErrorCode.RATE_LIMITED);
      expect((refused as AppError).message).toMatch(/retry/);
      await expect(Promise.all(running)).resolves.toEqual([countTokens(text), countTokens(text)]);
    } finally {
      await small.onModuleDestroy();
    }
  });

  it("R-TN-10: a team's count waits behind one task of another team's large count, not behind all of it", async () => {
    const single = tokenCounterFor(testConfig({ TOKEN_COUNT_THREADS: '1', TOKEN_COUNT_QUEUE_WAIT_MS: '600000' }));
    try {
      const settled: string[] = [];
      // Four tasks' worth of text: without counting in turns, one task that team A would wait behind whole.
      const large = single.count('team-b', JSON.stringify(payload(COUNTING_TASK_CHARS * 4, 7))).then(() => settled.push('b'));
      const own = JSON.stringify(payload(OFF_THREAD_FROM_CHARS * 2, 8));
      expect(await single.count('team-a', own)).toBe(countTokens(own));
      settled.push('a');
      await large;
      expect(settled).toEqual(['a', 'b']);
    } finally {
      await single.onModuleDestroy();
    }
  });

  it("R-TN-10: team A's task starts before team B's later-queued ones", async () => {
    const single = tokenCounterFor(testConfig({ TOKEN_COUNT_THREADS: '1', TOKEN_COUNT_QUEUE_WAIT_MS: '600000' }));
    try {
      const settled: string[] = [];
      const oneTask = JSON.stringify(payload(COUNTING_TASK_CHARS / 2, 9));
      const flood = [1, 2, 3].map((n) => single.count('team-b', oneTask).then(() => settled.push(`b${n}`)));
      await single.count('team-a', oneTask);
      settled.push('a');
      await Promise.all(flood);
      // b1 held the thread when team A asked; b2 and b3 had queued first, and waited.
      expect(settled).toEqual(['b1', 'a', 'b2', 'b3']);
    } finally {
      await single.onModuleDestroy();
    }
  });
});
