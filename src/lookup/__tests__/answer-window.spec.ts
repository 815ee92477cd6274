import fc from 'fast-check';
import { countTokens, o200kTokenizer, type PrefixTokenizer } from '../../common/text/tokenizer';
import { CONTINUE_MARKER_PREFIX, continueMarker, TokenPieces, windowAnswer, type WindowLimits } from '../answer-window';

const MEM = 'mem_abcdefghijklmnop';
const next = (offset: number) => `recall_tool_result(mem_id='${MEM}', offset=${offset})`;
const MARKER_LINE =
  /\n\[… more: continue with recall_tool_result\(mem_id='mem_abcdefghijklmnop', offset=(\d+)\); chars (\d+)–(\d+) of (\d+) shown\]$/;

/** A client walking the markers from offset 0: the windows it keeps, and how many calls it made. */
function walk(text: string, limits: WindowLimits): { text: string; calls: number; answers: string[] } {
  let offset = 0;
  let out = '';
  const answers: string[] = [];
  for (let calls = 1; calls <= 10_000; calls += 1) {
    const answer = windowAnswer(text, offset, limits, next, o200kTokenizer);
    answers.push(answer);
    const marker = MARKER_LINE.exec(answer);
    if (marker === null) return { text: out + answer, calls, answers };
    out += answer.slice(0, marker.index);
    expect(Number(marker[1])).toBeGreaterThan(offset);
    expect(Number(marker[2])).toBe(offset);
    expect(Number(marker[4])).toBe(text.length);
    offset = Number(marker[1]);
  }
  throw new Error('the walk did not end');
}

describe('windowAnswer', () => {
  it('R-LG-2 a text that fits comes back whole, with no marker', () => {
    expect(windowAnswer('small answer', 0, { maxTokens: 100, maxChars: 1000 }, next, o200kTokenizer)).toBe('small answer');
    expect(windowAnswer('0123456789', 4, { maxTokens: 100, maxChars: 6 }, next, o200kTokenizer)).toBe('456789');
  });

  it('R-LG-2 a rest of at most maxTokens UTF-8 bytes comes back whole without being counted; a longer one is counted', () => {
    const counted: string[] = [];
    const byteLevel: PrefixTokenizer = { ...o200kTokenizer, count: (text) => (counted.push(text), countTokens(text)) };
    const ids = JSON.stringify(Array.from({ length: 109 }, (_, i) => `B0${String(i).padStart(8, 'X')}`));
    expect(windowAnswer(ids, 0, { maxTokens: ids.length, maxChars: 100_000 }, next, byteLevel)).toBe(ids);
    expect(counted).toEqual([]);
    // 300 CJK characters are 900 bytes: at a 600-token bound they must be counted (they fit: ~300 tokens).
    const cjk = '漢字'.repeat(150);
    expect(windowAnswer(cjk, 0, { maxTokens: 600, maxChars: 100_000 }, next, byteLevel)).toBe(cjk);
    expect(counted.length).toBeGreaterThan(0);
    // A tokenizer that does not promise it is always counted.
    counted.length = 0;
    const { atMostOneTokenPerByte: _, ...unknownKind } = byteLevel;
    expect(windowAnswer('small answer', 0, { maxTokens: 100, maxChars: 1000 }, next, unknownKind)).toBe('small answer');
    expect(counted.join('')).toBe('small answer');
  });

  it('R-LG-2 the o200k tokenizer never counts more tokens than a text has UTF-8 bytes (what lets a short answer skip counting)', () => {
    const unit = fc.constantFrom('a', ' ', '\n', '😀', '漢', 'é', '\uD800', '<|endoftext|>', '{"k":1}', 'x'.repeat(300), '\u0000');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 400 })), (text) => {
        expect(countTokens(text)).toBeLessThanOrEqual(Buffer.byteLength(text, 'utf8'));
        expect(Buffer.byteLength(text, 'utf8')).toBeGreaterThanOrEqual(text.length);
      }),
    );
  });

  it('R-LG-2 a cut answer ends with one marker line naming the exact next call and the total size', () => {
    const text = '0123456789'.repeat(200);
    expect(windowAnswer(text, 1500, { maxTokens: 8000, maxChars: 5 }, next, o200kTokenizer)).toBe(
      `01234\n${CONTINUE_MARKER_PREFIX}recall_tool_result(mem_id='${MEM}', offset=1505); chars 1500–1505 of 2000 shown]`,
    );
    expect(continueMarker('call()', 0, 10, '≈30')).toBe(`${CONTINUE_MARKER_PREFIX}call(); chars 0–10 of ≈30 shown]`);
  });

  it('R-LG-2 never splits a surrogate pair, and always moves on by at least one code point', () => {
    expect(windowAnswer('ab😀cd', 2, { maxTokens: 8000, maxChars: 1 }, next, o200kTokenizer)).toMatch(/^😀\n\[… more: .*offset=4\)/);
    expect(windowAnswer('ab😀cd', 0, { maxTokens: 8000, maxChars: 3 }, next, o200kTokenizer)).toMatch(/^ab\n\[… more: .*offset=2\)/);
  });

  it('R-LG-2 the whole answer, marker included, stays within the token bound', () => {
    const json = JSON.stringify(
      Array.from({ length: 4000 }, (_, i) => ({ sku: `B0${i}`, price: i * 1.37, title: `Product ${i} ${'x'.repeat(i % 13)}` })),
    );
    for (const maxTokens of [100, 500, 8000]) {
      const answer = windowAnswer(json, 1234, { maxTokens, maxChars: 500_000 }, next, o200kTokenizer);
      expect(countTokens(answer)).toBeLessThanOrEqual(maxTokens);
      // Nearly full: a walk takes about ⌈tokens / bound⌉ calls.
      expect(countTokens(answer)).toBeGreaterThan(0.9 * maxTokens);
    }
  });

  it('R-LG-2 a window of a long payload is fitted without counting much beyond what it returns', () => {
    const json = JSON.stringify({ rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}`, price: i / 7 })) });
    let countedChars = 0;
    const recording = { ...o200kTokenizer, count: (text: string) => ((countedChars += text.length), countTokens(text)) };
    const answer = windowAnswer(json, 0, { maxTokens: 8000, maxChars: 500_000 }, next, recording);
    const window = answer.lastIndexOf('\n[… more: ');
    expect(json.length).toBeGreaterThan(20 * window);
    expect(countedChars).toBeLessThan(1.5 * window);
    expect(answer).toBe(windowAnswer(json, 0, { maxTokens: 8000, maxChars: 500_000 }, next, o200kTokenizer));
  });

  it('R-TN-10 a text with no point to cut it at (one long run) is fitted in a few counts, not one per bisection step', () => {
    const limits = { maxTokens: 8000, maxChars: 500_000 };
    for (const [text, expectedEnd] of [
      // 2 MiB of spaces: 500,000 of them take under 8,000 tokens, so the window is maxChars long.
      [' '.repeat(2 * 1024 * 1024), 500_000],
      // A letter run past maxChars (a shorter rest is first counted whole, once): the window ends where the bound is reached.
      ['a'.repeat(600_000), undefined],
    ] as const) {
      let counts = 0;
      let countedChars = 0;
      const recording = { ...o200kTokenizer, count: (t: string) => ((counts += 1), (countedChars += t.length), countTokens(t)) };
      const answer = windowAnswer(text, 7, limits, next, recording);
      const window = answer.lastIndexOf('\n[… more: ');
      if (expectedEnd !== undefined) expect(window).toBe(expectedEnd);
      // The longest that fits: the answer is within the bound, one more character would not be.
      expect(countTokens(answer)).toBeLessThanOrEqual(8000);
      const longer = `${text.slice(7, 7 + window + 1)}\n${continueMarker(next(7 + window + 1), 7, 7 + window + 1, String(text.length))}`;
      if (expectedEnd === undefined) expect(countTokens(longer)).toBeGreaterThan(8000);
      // Bisection counted the stretch about twenty times (17 to 20 windows' worth of characters).
      expect(counts).toBeLessThanOrEqual(16);
      expect(countedChars).toBeLessThan(10 * window);
    }
  });

  it('R-LG-2 a text kept with its pieces is not counted again: the same window twice, or the next one', () => {
    const json = JSON.stringify({ rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}`, price: i / 7 })) });
    let countedChars = 0;
    const recording = { ...o200kTokenizer, count: (text: string) => ((countedChars += text.length), countTokens(text)) };
    const pieces = new TokenPieces(json, recording);
    const limits = { maxTokens: 8000, maxChars: 500_000 };
    const first = windowAnswer(json, 0, limits, next, recording, { complete: true }, pieces);
    expect(first).toBe(windowAnswer(json, 0, limits, next, o200kTokenizer));
    const window = first.lastIndexOf('\n[… more: ');
    countedChars = 0;
    expect(windowAnswer(json, 0, limits, next, recording, { complete: true }, pieces)).toBe(first);
    expect(countedChars).toBeLessThan(0.2 * window);
    // The next window reuses the pieces counted past the first one's end.
    const second = windowAnswer(json, window, limits, next, recording, { complete: true }, pieces);
    expect(second).toBe(windowAnswer(json, window, limits, next, o200kTokenizer));
  });

  it('R-LG-2 an answer that is only the start of a longer text always says more follows', () => {
    const answer = windowAnswer('abc', 0, { maxTokens: 8000, maxChars: 100 }, next, o200kTokenizer, {
      complete: false,
      approximateChars: 900,
    });
    expect(answer).toBe(`abc\n${CONTINUE_MARKER_PREFIX}recall_tool_result(mem_id='${MEM}', offset=3); chars 0–3 of ≈900 shown]`);
  });

  it('R-LG-2 walking the markers from offset 0 gives the text back exactly, in about ⌈tokens / bound⌉ calls', () => {
    const text = JSON.stringify({ rows: Array.from({ length: 12_000 }, (_, i) => ({ id: i, name: `row ${i}`, tag: '😀ꙮ' })) });
    expect(text.length).toBeGreaterThan(300_000);
    expect(text).not.toContain('\n');
    const limits = { maxTokens: 8000, maxChars: 500_000 };
    const walked = walk(text, limits);
    expect(walked.text).toBe(text);
    for (const answer of walked.answers) expect(countTokens(answer)).toBeLessThanOrEqual(8000);
    const needed = Math.ceil(countTokens(text) / 8000);
    expect(Math.abs(walked.calls - needed)).toBeLessThanOrEqual(1);
  });

  it('R-LG-2 walking reconstructs any payload byte for byte (astral characters, long single lines)', () => {
    const unit = fc.constantFrom('a', ' ', '\n', '😀', '𒐫', 'ꙮ', '{', '"', '1', '\u0007', 'é');
    const payload = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 3000 }),
      fc.string({ unit, maxLength: 6000 }),
      fc.string({ unit: 'grapheme', maxLength: 2000 }),
      fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
    );
    fc.assert(
      fc.property(payload, fc.integer({ min: 100, max: 400 }), fc.integer({ min: 1, max: 5000 }), (text, maxTokens, maxChars) => {
        const walked = walk(text, { maxTokens, maxChars });
        expect(walked.text).toBe(text);
        for (const answer of walked.answers) {
          expect(countTokens(answer)).toBeLessThanOrEqual(maxTokens);
          const marker = MARKER_LINE.exec(answer);
          if (marker) expect(marker.index).toBeLessThanOrEqual(maxChars + 1);
        }
      }),
      { numRuns: 200 },
    );
  });
});
