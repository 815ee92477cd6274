import fc from 'fast-check';
import { countJsonArray } from '../json-array-tokens';
import { countTokens, countTokensByLine, longRuns, tokenBoundaryFrom } from '../tokenizer';

/*
 * countJsonArray adds up per-element counts (and reuses counts of pieces seen before); the sum
 * must be the count of the whole serialization, whatever the elements hold (R-LG-3's
 * tokensBefore/tokensAfter are the o200k counts of the serialized lists).
 */

/** Text that tries the pieces' edges: punctuation runs, digits, quotes, contractions, long runs, any code point. */
const edgyUnit = fc.oneof(
  fc.constantFrom('}', ']', ',', '{', '"', "'s", "'", ' ', '\n', '1', '22', 'a', 'Z', 'é', '\u0301', '<|endoftext|>', '/', '\\'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const edgyText = fc.oneof(
  { arbitrary: fc.string({ unit: edgyUnit, maxLength: 30 }), weight: 8 },
  { arbitrary: fc.constantFrom('a'.repeat(300), '}'.repeat(300), ' '.repeat(300), `${'x'.repeat(255)}"`), weight: 1 },
);
const key = fc.oneof(fc.constantFrom('role', 'content', 'Type', 'id'), fc.string({ unit: edgyUnit, maxLength: 5 }));
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { arbitrary: edgyText, weight: 4 },
    { arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null)), weight: 2 },
    { arbitrary: fc.array(tie('value'), { maxLength: 3 }), weight: 1 },
    { arbitrary: fc.dictionary(key, tie('value'), { maxKeys: 3 }), weight: 1 },
  ),
})).value;
const element = fc.dictionary(key, value, { minKeys: 0, maxKeys: 4 });
/** A message-like element: the first key starts with a letter, so the per-element sum is taken. */
const message = fc.dictionary(fc.constantFrom('role', 'content', 'Id', 'x'), value, { minKeys: 1, maxKeys: 3 });

describe('countJsonArray (R-LG-3 token figures)', () => {
  it('R-LG-3 gives JSON.stringify and its exact count for any array of objects', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(element, { maxLength: 6 }), fc.array(message, { maxLength: 6 })), (items) => {
        const counted = countJsonArray(items);
        const whole = JSON.stringify(items);
        expect(counted.chars).toBe(whole.length);
        expect(counted.tokens).toBe(countTokens(whole));
      }),
      { numRuns: 600 },
    );
  });

  it('R-LG-3 counts a message list exactly when the same large message comes again (a cached piece)', () => {
    const big = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: `${'word, '.repeat(2000)}"}]},{"` }] };
    const turn1 = [{ role: 'user', content: 'find it' }, big];
    const turn2 = [...turn1, { role: 'assistant', content: 'found.' }];
    for (const items of [turn1, turn2, turn1]) {
      expect(countJsonArray(items).tokens).toBe(countTokens(JSON.stringify(items)));
    }
  });

  it('R-LG-3 serializes an element shared by two lists once', () => {
    const serialized = new WeakMap<object, string>();
    const shared = { role: 'user', content: 'hello' };
    countJsonArray([shared], serialized);
    serialized.set(shared, '{"role":"user","content":"seen"}');
    expect(countJsonArray([shared], serialized)).toEqual({ chars: 34, tokens: countTokens('[{"role":"user","content":"seen"}]') });
  });
});

describe('countTokens long-run split (R-LG-1)', () => {
  // The regex before it was anchored at run starts: the split must find the very same runs.
  const UNANCHORED = /[\p{L}\p{M}]{256,}|[^\s\p{L}\p{M}\p{N}]{256,}|\s{256,}/gu;
  const ANCHORED = /(?<![\p{L}\p{M}])[\p{L}\p{M}]{256,}|(?<![^\s\p{L}\p{M}\p{N}])[^\s\p{L}\p{M}\p{N}]{256,}|(?<!\s)\s{256,}/gu;
  const runs = (regex: RegExp, text: string) => [...text.matchAll(regex)].map((m) => [m.index, m[0].length]);

  it('R-LG-1 anchoring the runs at their starts finds the same runs', () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'é', '\u0301', '}', ' ', '\n', '7', 'ж'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const repeated = fc.tuple(piece, fc.integer({ min: 1, max: 400 })).map(([p, n]) => p.repeat(n));
    fc.assert(
      fc.property(fc.array(repeated, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        expect(runs(ANCHORED, text)).toEqual(runs(UNANCHORED, text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('countTokensByLine (R-LG-1 stub budget)', () => {
  it('R-LG-1 equals countTokens of the whole text, with and without reused line counts', () => {
    const line = fc
      .tuple(fc.constantFrom('a', 'Z', 'x=', '[', ' ', '1', "'s", ''), edgyText)
      .map(([head, rest]) => head + rest.replace(/\n/g, ' '));
    const counted = new Map<string, number>();
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const text = lines.join('\n');
        expect(countTokensByLine(text, counted)).toBe(countTokens(text));
      }),
      { numRuns: 500 },
    );
  });
});

describe('longRuns (R-LG-1 linear token counting)', () => {
  const REFERENCE = /(?<![\p{L}\p{M}])[\p{L}\p{M}]{256,}|(?<![^\s\p{L}\p{M}\p{N}])[^\s\p{L}\p{M}\p{N}]{256,}|(?<!\s)\s{256,}/gu;
  it('R-LG-1 finds exactly the runs the regex finds over the whole text', () => {
    const piece = fc.oneof(
      fc.constantFrom('a', 'é', '\u0301', '}', ' ', '\n', '\u3000', '\u00a0', '7', 'ж', '😀', '\ud800', '"', 'x y'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const repeated = fc.tuple(piece, fc.integer({ min: 1, max: 400 })).map(([p, n]) => p.repeat(n));
    fc.assert(
      fc.property(fc.array(repeated, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        expect(longRuns(text).map((r) => [r.index, r.text.length])).toEqual(
          [...text.matchAll(REFERENCE)].map((m) => [m.index, m[0].length]),
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe('tokenBoundaryFrom (R-LG-2 counting a window piece by piece)', () => {
  it('R-LG-2 cut at its boundaries, the pieces count exactly as many tokens as the whole', () => {
    fc.assert(
      fc.property(fc.array(edgyText, { maxLength: 12 }), fc.integer({ min: 0, max: 40 }), (parts, step) => {
        const text = parts.join('');
        let total = 0;
        for (let from = 0; from < text.length;) {
          const to = tokenBoundaryFrom(text, from + 1 + step);
          total += countTokens(text.slice(from, to));
          from = to;
        }
        expect(total).toBe(countTokens(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('R-LG-2 finds a boundary after a letter, before a non-letter that is no apostrophe', () => {
    expect(tokenBoundaryFrom('{"price":12}', 0)).toBe(7);
    expect(tokenBoundaryFrom("it's ok", 0)).toBe(4);
    expect(tokenBoundaryFrom('日本語 1', 0)).toBe(5);
  });
});
