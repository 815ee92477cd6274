import { countTokens } from '../../../src/common/text/tokenizer';
import { bigPayloadText } from '../../fixtures/product-research-payload.fixture';
import { memberOfNewSpace, toolResult, type SpaceMember, type ToolResultInputShape } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { seededRandom } from '../../support/seeded-random';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Every recall answer but the stub is a window bounded by tokens (8,000 by default, the marker
 * line included) and by characters; a cut answer ends with one marker line naming the exact call
 * that reads on. These tests walk the markers the way a client would and compare the windows,
 * concatenated, with the text the service answers from.
 */

const ANSWER_MAX_TOKENS = 8_000;
const STUB_MAX_TOKENS = 120;

interface Handle {
  memId: string;
  sizeChars: number;
  sizeTokens: number;
  stub: string;
}
const RECORD_WITH_HANDLE = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { createdCount snapshots { memId toolOutput handle { memId sizeChars sizeTokens stub } } }
}`;
const RECALL = `query($m: String!, $f: RecallFormat, $q: String, $o: Int, $n: Int, $p: String, $t: Int) {
  recallToolResult(memId: $m, format: $f, query: $q, offset: $o, maxChars: $n, jsonPath: $p, maxTokens: $t)
}`;

interface RecallArgs {
  f?: 'SUMMARY' | 'FULL';
  q?: string;
  o?: number;
  n?: number;
  p?: string;
  t?: number;
}

/** `[… more: continue with <call>; chars <start>–<end> of <total> shown]`, as the last line. */
const MARKER = /\n\[… more: continue with (recall_tool_result\([^\n]*\)); chars (\d+)–(\d+) of (≈?\d+) shown\]$/;

interface Cut {
  window: string;
  call: string;
  start: number;
  end: number;
  total: string;
}

function cutOf(answer: string): Cut | null {
  const match = MARKER.exec(answer);
  if (match === null) return null;
  return { window: answer.slice(0, match.index), call: match[1], start: Number(match[2]), end: Number(match[3]), total: match[4] };
}

/** The call a marker must name to read on from `offset` with the same key and bounds. */
function expectedCall(memId: string, args: RecallArgs, offset: number): string {
  const key =
    args.p !== undefined ? `, json_path=${JSON.stringify(args.p)}` : args.q !== undefined ? `, query=${JSON.stringify(args.q)}` : '';
  const maxChars = args.n !== undefined ? `, max_chars=${args.n}` : '';
  const maxTokens = args.t !== undefined ? `, max_tokens=${args.t}` : '';
  return `recall_tool_result(mem_id='${memId}'${key}, offset=${offset}${maxChars}${maxTokens})`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

interface Walk {
  text: string;
  answers: string[];
  cuts: Cut[];
}

/** A deterministic ASCII-and-astral text of at least `minChars` UTF-16 units: emoji, ZWJ sequences, flags, CJK extension B. */
function astralText(minChars: number): string {
  const random = seededRandom(0xe30f1);
  const words = ['keyboard', 'switch', 'price', 'review', 'tactile', 'layout', 'shipping', 'return', 'week', 'stock'];
  const astral = ['😀', '🚀', '🎹', '👍🏽', '👩‍💻', '🇯🇵', '🏳️‍🌈', '𠀋', '𝔘𝔫𝔦', '🧪🧬', '🦄'];
  const parts: string[] = [];
  let length = 0;
  while (length < minChars) {
    const part =
      random() < 0.45
        ? astral[Math.floor(random() * astral.length)]
        : `${words[Math.floor(random() * words.length)]}${random() < 0.1 ? '\n' : ''}`;
    parts.push(part);
    length += part.length + 1;
  }
  return parts.join(' ');
}

describe('Lookup answer bounds (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  /** The 360 KB product-research payload, recorded as the text the model saw (as compaction records it). */
  let big: Handle;
  let bigText: string;

  const record = async (who: SpaceMember, input: ToolResultInputShape): Promise<Handle> => {
    return (await ok<{ recordToolResults: { snapshots: { handle: Handle }[] } }>(t, RECORD_WITH_HANDLE, { input: [input] }, who.token))
      .recordToolResults.snapshots[0].handle;
  };
  const recall = async (who: SpaceMember, memId: string, args: RecallArgs = {}): Promise<string> => {
    return (await ok<{ recallToolResult: string }>(t, RECALL, { m: memId, ...args }, who.token)).recallToolResult;
  };
  /** The text FULL answers from: the stored output as read back, a JSON text as itself, any other value as JSON. */
  const storedFullText = async (memId: string): Promise<string> => {
    const output = (await t.sql.query('select tool_output from message_tool_results where mem_id = $1', [memId])).rows[0]
      .tool_output as unknown;
    return typeof output === 'string' ? output : JSON.stringify(output);
  };

  /**
   * Reads from `first` on, then follows each marker with exactly the call it names: the same key
   * and bounds, the next offset. Checks every answer against `maxTokens` and the marker's exact
   * form; `total` is what the marker must state as the whole size.
   */
  const walk = async (
    memId: string,
    first: RecallArgs,
    options: { maxTokens: number; total: (cut: Cut) => boolean | string },
  ): Promise<Walk> => {
    const { f: _format, o: _offset, ...bounds } = first;
    const answers: string[] = [];
    const cuts: Cut[] = [];
    let text = '';
    let answer = await recall(alice, memId, first);
    for (let calls = 1; ; calls += 1) {
      answers.push(answer);
      expect(countTokens(answer)).toBeLessThanOrEqual(options.maxTokens);
      const cut = cutOf(answer);
      if (cut === null) {
        expect(answer.includes('\n[… more: continue with ')).toBe(false);
        text += answer;
        break;
      }
      cuts.push(cut);
      expect(cut.start).toBe(text.length);
      expect(cut.end).toBe(cut.start + cut.window.length);
      expect(cut.window.length).toBeGreaterThan(0);
      // Cut on a code-point boundary: no window ends inside a surrogate pair.
      expect(isHighSurrogate(cut.window.charCodeAt(cut.window.length - 1))).toBe(false);
      expect(cut.call).toBe(expectedCall(memId, bounds, cut.end));
      const total = options.total(cut);
      if (typeof total === 'string') expect(cut.total).toBe(total);
      else expect({ total: cut.total, ok: total }).toEqual({ total: cut.total, ok: true });
      text += cut.window;
      if (calls > 400) throw new Error(`no end after ${calls} calls`);
      answer = await recall(alice, memId, { ...bounds, o: cut.end });
    }
    return { text, answers, cuts };
  };

  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
    alice = await memberOfNewSpace(t);
    bigText = bigPayloadText();
    big = await record(
      alice,
      toolResult(alice.spaceId, crypto.randomUUID(), {
        toolName: 'search_products',
        toolInput: { query: 'mechanical keyboard' },
        toolOutput: bigText,
      }),
    );
    expect(await storedFullText(big.memId)).toBe(bigText);
  });
  afterAll(async () => {
    await t.close();
  });

  it('R-LG-2 FULL on the 360 KB payload is at most 8,000 tokens and ends with a marker; the walk gives back the payload in ⌈tokens/8000⌉ ± 1 calls', async () => {
    const full = await storedFullText(big.memId);
    const tokens = countTokens(full);
    expect(big.sizeTokens).toBe(tokens);
    expect(tokens).toBeGreaterThan(3 * ANSWER_MAX_TOKENS);

    const first = await recall(alice, big.memId, { f: 'FULL' });
    expect(countTokens(first)).toBeLessThanOrEqual(ANSWER_MAX_TOKENS);
    const cut = cutOf(first)!;
    expect(cut).not.toBeNull();
    expect(first).toBe(
      `${full.slice(0, cut.end)}\n[… more: continue with recall_tool_result(mem_id='${big.memId}', offset=${cut.end}); chars 0–${cut.end} of ${full.length} shown]`,
    );
    // FULL is the range from offset 0.
    expect(await recall(alice, big.memId, { o: 0 })).toBe(first);

    const walked = await walk(big.memId, { f: 'FULL' }, { maxTokens: ANSWER_MAX_TOKENS, total: () => String(full.length) });
    expect(walked.answers[0]).toBe(first);
    expect(walked.text === full).toBe(true);
    const expectedCalls = Math.ceil(tokens / ANSWER_MAX_TOKENS);
    expect(walked.answers.length).toBeGreaterThanOrEqual(expectedCalls - 1);
    expect(walked.answers.length).toBeLessThanOrEqual(expectedCalls + 1);
    // The last answer is the rest of the payload with no marker.
    expect(walked.answers.at(-1)).toBe(full.slice(walked.cuts.at(-1)!.end));
  });

  it('R-LG-2 maxTokens 500 lowers the bound and the marker carries max_tokens=500; maxChars 100 gives exactly 100 chars and carries max_chars=100', async () => {
    const full = await storedFullText(big.memId);

    const small = await recall(alice, big.memId, { f: 'FULL', t: 500 });
    expect(countTokens(small)).toBeLessThanOrEqual(500);
    const smallCut = cutOf(small)!;
    expect(smallCut).not.toBeNull();
    expect(small).toBe(
      `${full.slice(0, smallCut.end)}\n[… more: continue with recall_tool_result(mem_id='${big.memId}', offset=${smallCut.end}, max_tokens=500); chars 0–${smallCut.end} of ${full.length} shown]`,
    );
    // Filled, not merely under the bound: most of the room goes to the window.
    expect(countTokens(small)).toBeGreaterThan(0.8 * 500);
    const next = await recall(alice, big.memId, { o: smallCut.end, t: 500 });
    expect(countTokens(next)).toBeLessThanOrEqual(500);
    expect(next.startsWith(full.slice(smallCut.end, smallCut.end + 100))).toBe(true);

    const hundred = await recall(alice, big.memId, { n: 100 });
    expect(hundred).toBe(
      `${full.slice(0, 100)}\n[… more: continue with recall_tool_result(mem_id='${big.memId}', offset=100, max_chars=100); chars 0–100 of ${full.length} shown]`,
    );
    // Both bounds together: the marker names both, in the order max_chars, max_tokens.
    const both = await recall(alice, big.memId, { o: 5000, n: 100, t: 500 });
    expect(both).toBe(
      `${full.slice(5000, 5100)}\n[… more: continue with recall_tool_result(mem_id='${big.memId}', offset=5100, max_chars=100, max_tokens=500); chars 5000–5100 of ${full.length} shown]`,
    );
  });

  it('R-LG-2 maxChars 100 gives 99 chars when the 100th would split a surrogate pair', async () => {
    const text = `${'a'.repeat(99)}😀${'b'.repeat(50)}`;
    const handle = await record(alice, toolResult(alice.spaceId, crypto.randomUUID(), { toolName: 'fetch_page', toolOutput: text }));
    const answer = await recall(alice, handle.memId, { n: 100 });
    expect(answer).toBe(
      `${'a'.repeat(99)}\n[… more: continue with recall_tool_result(mem_id='${handle.memId}', offset=99, max_chars=100); chars 0–99 of ${text.length} shown]`,
    );
    // The next window starts with the whole emoji, and the rest fits: no marker.
    expect(await recall(alice, handle.memId, { o: 99, n: 100 })).toBe(`😀${'b'.repeat(50)}`);
  });

  it('R-LG-2 offset, maxChars and maxTokens window the answer of a query, whose marker names the query', async () => {
    const whole = await recall(alice, big.memId, { q: 'price_history' });
    expect(whole.startsWith('[match 1 of ')).toBe(true);
    expect(cutOf(whole)).toBeNull();
    expect(whole.length).toBeGreaterThan(1000);

    const first = await recall(alice, big.memId, { q: 'price_history', n: 300 });
    expect(first).toBe(
      `${whole.slice(0, 300)}\n[… more: continue with recall_tool_result(mem_id='${big.memId}', query="price_history", offset=300, max_chars=300); chars 0–300 of ${whole.length} shown]`,
    );
    const walked = await walk(
      big.memId,
      { q: 'price_history', n: 300 },
      { maxTokens: ANSWER_MAX_TOKENS, total: () => String(whole.length) },
    );
    expect(walked.text).toBe(whole);
    expect(walked.answers.length).toBe(Math.ceil(whole.length / 300));
    const fewTokens = await recall(alice, big.memId, { q: 'price_history', t: 200 });
    expect(countTokens(fewTokens)).toBeLessThanOrEqual(200);
    const fewCut = cutOf(fewTokens)!;
    expect(fewTokens).toBe(
      `${whole.slice(0, fewCut.end)}\n[… more: continue with recall_tool_result(mem_id='${big.memId}', query="price_history", offset=${fewCut.end}, max_tokens=200); chars 0–${fewCut.end} of ${whole.length} shown]`,
    );
    expect(await recall(alice, big.memId, { q: 'price_history', o: whole.length })).toBe(
      `[tool_memory bad range: offset ${whole.length} is past the end (length ${whole.length})]`,
    );
  });

  describe('a jsonPath selecting a ~100 KB sub-array', () => {
    let memId: string;
    let rowsJson: string;

    beforeAll(async () => {
      const random = seededRandom(0x4005);
      // Keys in jsonb's own order (shorter first, then bytewise), so the stored value reads back as sent.
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        id: i,
        qty: Math.floor(random() * 500),
        sku: `SKU-${String(100000 + i * 37).padStart(8, '0')}`,
        name: `Keyboard part ${i} - switch ${['linear', 'tactile', 'clicky'][i % 3]}`,
        note: i % 7 === 0 ? 'back "order"\tdue' : 'in stock',
        price: (1999 + Math.floor(random() * 20000)) / 100,
      }));
      const toolOutput = { meta: { source: 'warehouse', generated: '2026-01-05', count: rows.length }, rows };
      rowsJson = JSON.stringify(rows);
      expect(rowsJson.length).toBeGreaterThan(90_000);
      expect(rowsJson.length).toBeLessThan(120_000);
      const handle = await record(
        alice,
        toolResult(alice.spaceId, crypto.randomUUID(), { toolName: 'run_query', toolInput: { sql: 'select * from parts' }, toolOutput }),
      );
      memId = handle.memId;
      // What the service answers from: the value as stored, read back, as compact JSON.
      expect(JSON.stringify((JSON.parse(await storedFullText(memId)) as { rows: unknown }).rows)).toBe(rowsJson);
    });

    it('R-LG-2 json_path="rows" is windowed with the same marker, and walking it gives back the compact JSON of the array', async () => {
      const first = await recall(alice, memId, { p: 'rows' });
      expect(countTokens(first)).toBeLessThanOrEqual(ANSWER_MAX_TOKENS);
      const cut = cutOf(first)!;
      expect(cut).not.toBeNull();
      expect(first).toBe(
        `${rowsJson.slice(0, cut.end)}\n[… more: continue with recall_tool_result(mem_id='${memId}', json_path="rows", offset=${cut.end}); chars 0–${cut.end} of ${rowsJson.length} shown]`,
      );
      expect(first).toContain('json_path="rows"');
      expect(first).toContain('offset=');

      const walked = await walk(memId, { p: 'rows' }, { maxTokens: ANSWER_MAX_TOKENS, total: () => String(rowsJson.length) });
      expect(walked.text === rowsJson).toBe(true);
      const tokens = countTokens(rowsJson);
      expect(walked.answers.length).toBeGreaterThanOrEqual(Math.ceil(tokens / ANSWER_MAX_TOKENS) - 1);
      expect(walked.answers.length).toBeLessThanOrEqual(Math.ceil(tokens / ANSWER_MAX_TOKENS) + 1);
      // A leaf still answers whole, with no marker; an offset past the value's end is bracketed.
      expect(await recall(alice, memId, { p: 'rows.3.sku' })).toBe('SKU-00100111');
      expect(await recall(alice, memId, { p: 'rows', o: rowsJson.length })).toBe(
        `[tool_memory bad range: offset ${rowsJson.length} is past the end (length ${rowsJson.length})]`,
      );
    });

    it('R-LG-2 a value fetched in part states its total as ≈N, and walking it with max_chars still gives back the array exactly', async () => {
      const stored = await t.sql.query(`select length((tool_output #> '{rows}')::text) as n from message_tool_results where mem_id = $1`, [
        memId,
      ]);
      const jsonbLength = Number(stored.rows[0].n);
      const walked = await walk(
        memId,
        { p: 'rows', n: 10_000 },
        { maxTokens: ANSWER_MAX_TOKENS, total: (cut) => cut.total === `≈${jsonbLength}` || cut.total === String(rowsJson.length) },
      );
      expect(walked.text === rowsJson).toBe(true);
      expect(walked.cuts[0].total).toBe(`≈${jsonbLength}`);
      // The character bound binds here: every window but the last is exactly 10,000 chars.
      for (const cut of walked.cuts) expect(cut.window.length).toBe(10_000);
      expect(walked.answers.length).toBe(Math.ceil(rowsJson.length / 10_000));
    });
  });

  it('R-LG-1 the stub of a payload over the bound leads with the keyed ways and states its tokens; a small payload keeps the v1 re-expand line', async () => {
    const bigStub = await recall(alice, big.memId);
    expect(bigStub).toBe(big.stub);
    const bigLines = bigStub.split('\n');
    expect(bigLines[0]).toBe('[recall-ledger tool_memory v3]');
    expect(bigLines).toContain(`size_original=${bigText.length} chars, ${big.sizeTokens} tokens`);
    expect(bigLines.at(-1)).toBe(
      `re-expand by key: recall_tool_result(mem_id='${big.memId}', json_path=<$.a[0].b> | query=<text> | offset=<n>); format="full" pages ${ANSWER_MAX_TOKENS} tokens from offset=0`,
    );
    expect(bigStub).not.toContain('re-expand: ');
    expect(countTokens(bigStub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);

    const smallOutput = {
      members: Array.from({ length: 40 }, (_, i) => ({
        name: `member ${i}`,
        registered_at: `2026-05-${String(1 + (i % 28)).padStart(2, '0')}`,
      })),
    };
    const small = await record(alice, toolResult(alice.spaceId, crypto.randomUUID(), { toolOutput: smallOutput }));
    expect(small.sizeTokens).toBeLessThanOrEqual(ANSWER_MAX_TOKENS);
    const smallStub = await recall(alice, small.memId, { f: 'SUMMARY' });
    expect(smallStub).toBe(small.stub);
    const smallLines = smallStub.split('\n');
    expect(smallLines[0]).toBe('[recall-ledger tool_memory v3]');
    expect(smallLines).toContain(`size_original=${small.sizeChars} chars`);
    expect(smallLines.at(-1)).toBe(
      `re-expand: recall_tool_result(mem_id='${small.memId}', format="full"); slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<$.a[0].b>`,
    );
    expect(smallStub).not.toContain('tokens');
    expect(countTokens(smallStub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
    // Under the bound, FULL is the whole payload in one answer, with no marker.
    expect(await recall(alice, small.memId, { f: 'FULL' })).toBe(await storedFullText(small.memId));
  });

  it('R-LG-2 a ~50 KB text with astral characters walked with maxTokens 1000 comes back exactly, never split inside a surrogate pair', async () => {
    const text = astralText(50_000);
    expect(text.length).toBeGreaterThanOrEqual(50_000);
    expect(Array.from(text).length).toBeLessThan(text.length);
    const handle = await record(
      alice,
      toolResult(alice.spaceId, crypto.randomUUID(), {
        toolName: 'fetch_page',
        toolInput: { url: 'https://example.com/emoji' },
        toolOutput: text,
      }),
    );
    expect(await storedFullText(handle.memId)).toBe(text);

    const walked = await walk(handle.memId, { f: 'FULL', t: 1000 }, { maxTokens: 1000, total: () => String(text.length) });
    expect(walked.text === text).toBe(true);
    const tokens = countTokens(text);
    expect(walked.answers.length).toBeGreaterThanOrEqual(Math.ceil(tokens / 1000));
    // Each window starts where the previous ended, on a code-point boundary.
    for (const cut of walked.cuts) {
      const code = text.charCodeAt(cut.end);
      expect(code >= 0xdc00 && code <= 0xdfff).toBe(false);
    }
  });
});
