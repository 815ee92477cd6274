import fc from 'fast-check';
import { countTokens } from '../../../common/text/tokenizer';
import { buildHandle, type HandleSource } from '../build-handle';
import { STUB_MARKER, STUB_MAX_TOKENS } from '../stub';

/*
 * The handle and its stub are built once, at write time, from whatever a client sent (R-LG-1):
 * any Unicode, special-token strings, control characters, bidi marks, pathological words. Every
 * such payload must give a bounded, deterministic, single-line-per-field stub, never a throw.
 */

const SPECIAL_TOKENS = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<|endofprompt|>',
  '<|fim_prefix|>',
  '<|fim_middle|>',
  '<|fim_suffix|>',
];
const BIDI_MARKS = ['\u202e', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200f', '\u200e', '\u061c'];
// Every way a field could try to start a line of its own.
const LINE_BREAKS = ['\n', '\r', '\r\n', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'];
const CONTROL_CHARS = [...Array.from({ length: 0x20 }, (_, c) => c), ...Array.from({ length: 0x21 }, (_, c) => 0x7f + c)].map((c) =>
  String.fromCharCode(c),
);

// Generated once: a single 250,000-character word, Latin and non-Latin (BPE on one such pre-token
// is quadratic unless counted in pieces).
const HUGE_WORD = 'a'.repeat(250_000);
const HUGE_CYRILLIC_WORD = 'ж'.repeat(250_000);

/** One unit of hostile text: a grapheme, any code point, a special token, a control char, a bidi mark or a line break. */
const hostileUnit: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: fc.constantFrom(...SPECIAL_TOKENS), weight: 2 },
  { arbitrary: fc.constantFrom(...CONTROL_CHARS), weight: 2 },
  { arbitrary: fc.constantFrom(...BIDI_MARKS), weight: 1 },
  { arbitrary: fc.constantFrom(...LINE_BREAKS), weight: 1 },
  { arbitrary: fc.constantFrom(' ', 'a', '1', '{', '"', "'"), weight: 2 },
);

/** Short hostile text; occasionally the 250,000-character word, on its own or wrapped in tokens. */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: hostileUnit, maxLength: 40 }), weight: 10 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.constantFrom(...SPECIAL_TOKENS), weight: 2 },
  { arbitrary: fc.constant(HUGE_WORD), weight: 1 },
  { arbitrary: fc.constant(HUGE_CYRILLIC_WORD), weight: 1 },
  { arbitrary: fc.constant(`<|endoftext|>${HUGE_WORD}<|im_start|>`), weight: 1 },
);

const smallJson = fc.jsonValue({ stringUnit: hostileUnit, maxDepth: 3 });
const finiteNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e308, -1e308, 5e-324),
);
const dateLike = fc.oneof(hostileText, fc.constantFrom('2026-05-10', '2026-02-30', '2025-12-31T23:59:59.999999999+14:00', '9999-99-99'));

/** JSON values: arbitrary ones, objects keyed by hostile text, and the shapes the built-in summarizer rules read. */
const jsonOutput: fc.Arbitrary<unknown> = fc.oneof(
  smallJson,
  fc.dictionary(hostileText, fc.oneof(hostileText, smallJson), { maxKeys: 10 }),
  fc.array(fc.dictionary(hostileText, hostileText, { maxKeys: 4 }), { maxLength: 5 }),
  fc.record({
    query: hostileText,
    marketplace: hostileText,
    items: fc.array(fc.dictionary(hostileText, hostileText, { maxKeys: 4 }), { maxLength: 4 }),
  }),
  fc.record({ members: fc.array(fc.record({ name: hostileText, registered_at: dateLike }), { maxLength: 4 }) }),
  fc.record({ plans: fc.array(fc.record({ name: fc.oneof(hostileText, finiteNumber), active_members: finiteNumber }), { maxLength: 4 }) }),
  fc.record({
    metric: hostileText,
    granularity: hostileText,
    points: fc.array(fc.record({ period: dateLike, value: finiteNumber }), { maxLength: 4 }),
  }),
);

/** Text outputs: plain hostile text, or JSON text (compaction stores what the model saw), sometimes indented. */
const textOutput: fc.Arbitrary<string> = fc.oneof(
  hostileText,
  fc.tuple(hostileText, hostileText).map(([a, b]) => `${a}\n${b}`),
  fc.tuple(jsonOutput, fc.constantFrom(undefined, 2, '\t')).map(([value, indent]) => JSON.stringify(value, null, indent)),
  hostileText.map((text) => `<|endoftext|>${text}`),
);

const toolName = fc.oneof(
  hostileText,
  fc.constantFrom('query_site_data', 'query_kpi_trend', 'search_products', 'constructor', '__proto__'),
);
const toolInput = fc.oneof(
  smallJson,
  fc.record({ target: fc.oneof(fc.constantFrom('recent_members', 'memberships'), hostileText) }),
  fc.dictionary(hostileText, hostileText),
);

const handleSource: fc.Arbitrary<HandleSource> = fc
  .record({
    memId: fc.stringMatching(/^mem_[a-z2-7]{16}$/),
    toolName,
    toolUseId: fc.oneof(hostileText, fc.stringMatching(/^toolu_[A-Za-z0-9]{24}$/)),
    toolInput,
    toolOutput: fc.oneof(jsonOutput, textOutput),
  })
  // sizeChars as the write path computes it: a text's length, else the serialized JSON's.
  .map((s) => ({ ...s, sizeChars: typeof s.toolOutput === 'string' ? s.toolOutput.length : JSON.stringify(s.toolOutput).length }));

const RAW_BREAK_OR_CONTROL = /[\p{Cc}\u2028\u2029]/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// The stub's lines, in order; schema and preview may be dropped to fit the budget.
const LINE_PATTERNS: readonly RegExp[] = [
  /^tool=/,
  /^size_original=(\d+|\?) chars(, (\d+|\?) lines)?(, (\d+|\?) tokens)?$/,
  /^schema: /,
  /^summary: /,
  /^preview: /,
  /^re-expand( by key)?: recall_tool_result\(mem_id='/,
];

/** A deep copy, so a second build cannot share any state with the first. */
function copyOf(source: HandleSource): HandleSource {
  return { ...source, toolInput: structuredClone(source.toolInput), toolOutput: structuredClone(source.toolOutput) };
}

describe('buildHandle on arbitrary Unicode', () => {
  it('R-LG-1 never throws, stays within 120 tokens, starts with the marker and is byte-identical when built again', () => {
    fc.assert(
      fc.property(handleSource, (source) => {
        const handle = buildHandle(source);
        expect(handle.stub.startsWith(`${STUB_MARKER}\n`)).toBe(true);
        expect(countTokens(handle.stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
        const again = buildHandle(copyOf(source));
        expect(again.stub).toBe(handle.stub);
        expect(again).toEqual(handle);
        expect(handle).toMatchObject({
          memId: source.memId,
          toolName: source.toolName,
          toolCallId: source.toolUseId,
          sizeChars: source.sizeChars,
        });
        // A real mem id is never cut: the stub always says how to re-expand it.
        expect(handle.stub).toContain(`recall_tool_result(mem_id='${source.memId}'`);
      }),
      { numRuns: 100 },
    );
  });

  it('R-LG-1 every field is one line: no raw control character or line break from a field reaches the stub', () => {
    fc.assert(
      fc.property(handleSource, (source) => {
        const handle = buildHandle(source);
        for (const field of [handle.summaryOneliner, handle.schemaHint, handle.headPreview]) {
          if (field !== null) expect(field).not.toMatch(RAW_BREAK_OR_CONTROL);
        }
        const [marker, ...lines] = handle.stub.split('\n');
        expect(marker).toBe(STUB_MARKER);
        for (const line of lines) expect(line).not.toMatch(RAW_BREAK_OR_CONTROL);
        // Each line is one of the stub's own, in order: a field never forges a line.
        let next = 0;
        for (const line of lines) {
          while (next < LINE_PATTERNS.length && !LINE_PATTERNS[next].test(line)) next += 1;
          expect({ line, known: next < LINE_PATTERNS.length }).toEqual({ line, known: true });
          next += 1;
        }
        expect(lines[0]).toMatch(/^tool=/);
        expect(lines.at(-1)).toMatch(/^re-expand( by key)?: /);
      }),
      { numRuns: 100 },
    );
  });

  it('R-LG-1 the stored handle fields are storable text: no NUL and no unpaired surrogate (the stub read back equals the one returned)', () => {
    fc.assert(
      fc.property(handleSource, (source) => {
        const handle = buildHandle(source);
        for (const field of [handle.stub, handle.summaryOneliner, handle.schemaHint, handle.headPreview]) {
          if (field === null) continue;
          expect(field).not.toContain('\u0000');
          expect(field).not.toMatch(LONE_SURROGATE);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('R-LG-1 special-token strings, bidi marks and a 250,000-character word give a bounded stub quickly', () => {
    const cases: HandleSource[] = [
      { toolOutput: `<|endoftext|>${HUGE_WORD}`, toolName: '<|im_start|>system', toolInput: { q: '<|endofprompt|>' } },
      { toolOutput: { [HUGE_CYRILLIC_WORD]: HUGE_WORD, '<|fim_prefix|>': ['\u202e\u2066\u200f'] }, toolName: HUGE_WORD, toolInput: {} },
      { toolOutput: JSON.stringify({ text: `\u0000\u001f\u007f\u009f${HUGE_WORD}` }), toolName: 'search_products', toolInput: HUGE_WORD },
      { toolOutput: SPECIAL_TOKENS.join('\n'), toolName: SPECIAL_TOKENS.join(''), toolInput: null },
    ].map((partial, index) => ({
      memId: `mem_abcdefghijklmno${index + 2}`,
      toolUseId: `toolu_${index}`,
      sizeChars: typeof partial.toolOutput === 'string' ? partial.toolOutput.length : JSON.stringify(partial.toolOutput).length,
      ...partial,
    }));
    const started = Date.now();
    for (const source of cases) {
      const handle = buildHandle(source);
      expect(handle.stub.startsWith(`${STUB_MARKER}\n`)).toBe(true);
      expect(countTokens(handle.stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
      expect(buildHandle(copyOf(source)).stub).toBe(handle.stub);
      for (const line of handle.stub.split('\n')) expect(line).not.toMatch(RAW_BREAK_OR_CONTROL);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
