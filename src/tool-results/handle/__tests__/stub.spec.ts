import fc from 'fast-check';
import { countTokens } from '../../../common/text/tokenizer';
import { DEFAULT_ANSWER_MAX_TOKENS } from '../../../config/setting-defaults';
import { isToolResultStub, renderStub, STUB_MARKER, STUB_MAX_TOKENS } from '../stub';
import type { StubSource } from '../tool-result-handle';

const compactHandle: StubSource = {
  memId: 'mem_ABCDEFGHIJKLMNOP',
  toolName: 'lookup_rows',
  toolCallId: 'call_1',
  sizeChars: 2048,
  sizeTokens: 700,
  summaryOneliner: '3 rows, newest 2025-05-26',
  schemaHint: '{rows: [{id, name}×3]}',
  headPreview: '{"rows":[{"id":1,"name":"alpha"},{"id":2,"name":"beta"}…',
};

// Real ids are token-hungry (random base62/base32): the optional lines give way to the budget.
const searchHandle: StubSource = {
  memId: 'mem_7QK2M9X4TZ8B3NWA',
  toolName: 'search_products',
  toolCallId: 'toolu_01HqX8v2Lm4Tn7Rb9Kc3Pw5Zs1',
  sizeChars: 363155,
  sizeTokens: 3000,
  summaryOneliner: '320 items, newest 2025-05-26',
  schemaHint:
    '{query, marketplace, items: [{product_id, title, brand, price, rating, reviews, rank, price_history: [{date, price}×26]}×320], total}',
  headPreview: '{"query":"mechanical keyboard","marketplace":"US","items":[{"product_id":"B0Z0T2PUCW","title":"Nordpeak Mechanical Keyb…',
};

// Token-hungry characters (rare planes, control characters) next to ordinary text.
const heavyUnit = fc.constantFrom('\u{10FFFF}', '\u{E0100}', 'ꙮ', '𒐫', '\u0000', '\n', ' ', 'a', '1', "'");
const arbitraryText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: heavyUnit, maxLength }),
  );

const arbitraryHandle: fc.Arbitrary<StubSource> = fc.record({
  memId: fc.oneof(fc.stringMatching(/^mem_[A-Z2-7]{16}$/), arbitraryText(400)),
  toolName: arbitraryText(400),
  toolCallId: arbitraryText(400),
  sizeChars: fc.oneof(fc.nat(), fc.integer(), fc.double()),
  sizeTokens: fc.oneof(fc.nat(), fc.integer(), fc.double()),
  summaryOneliner: arbitraryText(1000),
  schemaHint: fc.option(arbitraryText(600), { nil: null }),
  headPreview: fc.option(arbitraryText(600), { nil: null }),
});

describe('renderStub', () => {
  it('R-LG-1 renders the golden stub with every line when the fields are short', () => {
    expect(renderStub(compactHandle)).toBe(
      [
        '[recall-ledger tool_memory v3]',
        'tool=lookup_rows',
        'size_original=2048 chars',
        'schema: {rows: [{id, name}×3]}',
        'summary: 3 rows, newest 2025-05-26',
        'preview: {"rows":[{"id":1,"name":"alpha"},{"id":2,"name":"beta"}…',
        `re-expand: recall_tool_result(mem_id='mem_ABCDEFGHIJKLMNOP', format="full"); ` +
          'slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<$.a[0].b>',
      ].join('\n'),
    );
  });

  it('R-LG-1 renders the golden stub of a real-sized result, optional lines giving way to the budget', () => {
    const stub = renderStub(searchHandle);
    expect(stub).toBe(
      [
        '[recall-ledger tool_memory v3]',
        'tool=search_products',
        'size_original=363155 chars',
        'schema: {query, marketplace, items: [{product_id, title, brand, price, rating, reviews, rank,…',
        'summary: 320 items, newest 2025-05-26',
        `re-expand: recall_tool_result(mem_id='mem_7QK2M9X4TZ8B3NWA', format="full"); ` +
          'slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<$.a[0].b>',
      ].join('\n'),
    );
    expect(countTokens(stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
  });

  it('R-LG-1 a payload over the answer bound: the keyed ways first, its size in tokens, FULL as a walk from offset=0', () => {
    const stub = renderStub({ ...searchHandle, sizeTokens: 131_702 }, { answerMaxTokens: 8000 });
    expect(stub).toBe(
      [
        '[recall-ledger tool_memory v3]',
        'tool=search_products',
        'size_original=363155 chars, 131702 tokens',
        'schema: {query, marketplace, items: [{product_id, title,…',
        'summary: 320 items, newest 2025-05-26',
        `re-expand by key: recall_tool_result(mem_id='mem_7QK2M9X4TZ8B3NWA', json_path=<$.a[0].b> | query=<text> | offset=<n>); ` +
          'format="full" pages 8000 tokens from offset=0',
      ].join('\n'),
    );
    expect(countTokens(stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
    // At the bound exactly, the small shape stays.
    expect(renderStub({ ...searchHandle, sizeTokens: 8000 }, { answerMaxTokens: 8000 })).toBe(renderStub(searchHandle));
  });

  it('R-LG-1 R-LG-2 a multi-line text payload names its line count and the line-range way', () => {
    const lines = renderStub({ ...compactHandle, textLines: 10_000 }).split('\n');
    expect(lines[2]).toBe('size_original=2048 chars, 10000 lines');
    expect(lines.at(-1)).toBe(
      `re-expand: recall_tool_result(mem_id='mem_ABCDEFGHIJKLMNOP', format="full"); ` +
        'slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<$.a[0].b> | line_start=<n>, line_count=<n>',
    );
    const large = renderStub({ ...compactHandle, textLines: 10_000, sizeTokens: 9000 }, { answerMaxTokens: 8000 }).split('\n');
    expect(large[2]).toBe('size_original=2048 chars, 10000 lines, 9000 tokens');
    expect(large.at(-1)).toBe(
      `re-expand by key: recall_tool_result(mem_id='mem_ABCDEFGHIJKLMNOP', json_path=<$.a[0].b> | line_start=<n> | query=<text> | offset=<n>); ` +
        'format="full" pages 8000 tokens from offset=0',
    );
    expect(renderStub({ ...compactHandle, textLines: null })).toBe(renderStub(compactHandle));
  });

  it('R-LG-1 names the mem id and how to re-expand, whole or by query, range or json_path', () => {
    const stub = renderStub(searchHandle);
    expect(stub).toContain(`recall_tool_result(mem_id='mem_7QK2M9X4TZ8B3NWA', format="full")`);
    for (const key of ['query=', 'offset=', 'max_chars=', 'json_path=']) expect(stub).toContain(key);
    expect(stub.startsWith(STUB_MARKER)).toBe(true);
    expect(isToolResultStub(stub)).toBe(true);
    expect(isToolResultStub('{"items": []}')).toBe(false);
  });

  it('R-LG-1 gives the same bytes for the same handle, and for an equal copy of it', () => {
    expect(renderStub(searchHandle)).toBe(renderStub(searchHandle));
    expect(renderStub({ ...searchHandle })).toBe(renderStub(JSON.parse(JSON.stringify(searchHandle)) as StubSource));
  });

  it('R-LG-1 stays within 120 tokens, on a fixed line count, for adversarial handles', () => {
    fc.assert(
      fc.property(arbitraryHandle, (handle) => {
        const stub = renderStub(handle);
        expect(countTokens(stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
        expect(stub.startsWith(`${STUB_MARKER}\ntool=`)).toBe(true);
        // Newlines in fields are collapsed, so a field can never forge a line of its own.
        expect(stub.split('\n').length).toBeLessThanOrEqual(7);
        // A payload over the answer bound leads with the keyed ways; any other keeps the v1 shape.
        expect(stub.split('\n').at(-1)).toMatch(
          handle.sizeTokens > DEFAULT_ANSWER_MAX_TOKENS && Number.isSafeInteger(handle.sizeTokens)
            ? /^re-expand by key: recall_tool_result\(mem_id='.*', json_path=<\$\.a\[0\]\.b> \| query=<text> \| offset=<n>\); format="full" pages 8000 tokens from offset=0$/
            : /^re-expand: recall_tool_result\(mem_id='.*', format="full"\); slice: /,
        );
        expect(renderStub(handle)).toBe(stub);
      }),
      { numRuns: 300 },
    );
  });

  it('R-LG-1 never cuts a real mem id, however long the other fields are', () => {
    fc.assert(
      fc.property(arbitraryHandle, fc.stringMatching(/^mem_[A-Z2-7]{16}$/), (handle, memId) => {
        expect(renderStub({ ...handle, memId })).toContain(`recall_tool_result(mem_id='${memId}', `);
      }),
      { numRuns: 150 },
    );
  });

  it('R-LG-1 elides a long summary with … instead of dropping it', () => {
    const stub = renderStub({ ...searchHandle, summaryOneliner: 'price '.repeat(200) });
    expect(stub).toMatch(/\nsummary: (price )+price…\n/);
    expect(countTokens(stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
  });
});
