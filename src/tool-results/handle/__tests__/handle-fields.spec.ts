import fc from 'fast-check';
import { HEAD_PREVIEW_MAX_CHARS, headPreview } from '../head-preview';
import { SCHEMA_HINT_MAX_CHARS, schemaHint } from '../schema-hint';
import { buildHandle } from '../build-handle';

describe('schemaHint', () => {
  it('R-LG-1 describes the shape: keys, arrays by their first element with ×N', () => {
    const items = Array.from({ length: 312 }, (_, i) => ({ sku: `s${i}`, price: i, title: 't' }));
    expect(schemaHint({ items, total: 312 })).toBe('{items: [{sku, price, title}×312], total}');
    expect(schemaHint([1, 2, 3])).toBe('[number×3]');
    expect(schemaHint({ tags: ['a'], empty: [], none: null, nested: {} })).toBe('{tags: [string×1], empty, none, nested}');
  });

  it('R-LG-1 bounds the keys with … and the depth', () => {
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, i]));
    expect(schemaHint(wide)).toBe('{key0, key1, key2, key3, key4, key5, key6, key7, …}');
    const deep = { a: { b: { c: { d: { e: 1 } } } } };
    expect(schemaHint(deep)).toBe('{a: {b: {c: {d}}}}');
    expect(schemaHint([[[[[[1]]]]]])).toBe('[[[[…×1]×1]×1]×1]');
  });

  it('R-LG-1 reads JSON text and gives null for plain text', () => {
    expect(schemaHint('{"rows": [{"id": 1, "name": "a"}], "next": null}')).toBe('{rows: [{id, name}×1], next}');
    expect(schemaHint('the service returned 3 rows')).toBeNull();
    expect(schemaHint('{not json')).toBeNull();
    expect(schemaHint('"a JSON string"')).toBeNull();
  });

  it('R-LG-1 quotes keys that would read ambiguously', () => {
    expect(schemaHint({ 'first name': 1, 'a,b': 2, ok_key: 3 })).toBe('{"first name", "a,b", ok_key}');
  });

  it('R-LG-1 stays within the bound and is deterministic for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const hint = schemaHint(value);
        if (hint !== null) expect(Array.from(hint).length).toBeLessThanOrEqual(SCHEMA_HINT_MAX_CHARS);
        expect(schemaHint(JSON.parse(JSON.stringify(value)))).toBe(hint);
      }),
      { numRuns: 300 },
    );
  });
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('headPreview', () => {
  it('R-LG-1 collapses whitespace runs to one line', () => {
    expect(headPreview('  {\n  "a": 1,\r\n\t"b": 2 }\n')).toBe('{ "a": 1, "b": 2 }');
  });

  it('R-LG-1 keeps the first ~120 chars and marks the cut with …', () => {
    const preview = headPreview('x'.repeat(500));
    expect(preview).toBe(`${'x'.repeat(HEAD_PREVIEW_MAX_CHARS - 1)}…`);
    expect(headPreview('y'.repeat(HEAD_PREVIEW_MAX_CHARS))).toBe('y'.repeat(HEAD_PREVIEW_MAX_CHARS));
    expect(headPreview(`${'y'.repeat(HEAD_PREVIEW_MAX_CHARS)}   \n`)).toBe('y'.repeat(HEAD_PREVIEW_MAX_CHARS));
  });

  it('R-LG-1 gives null for empty or blank text', () => {
    expect(headPreview('')).toBeNull();
    expect(headPreview(' \n\t ')).toBeNull();
  });

  it('R-LG-1 is single-line, bounded and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const preview = headPreview(text);
        if (preview === null) return;
        expect(preview).not.toMatch(/[\n\r\t]/);
        expect(Array.from(preview).length).toBeLessThanOrEqual(HEAD_PREVIEW_MAX_CHARS);
        expect(preview).not.toMatch(LONE_SURROGATE);
      }),
      { numRuns: 300 },
    );
  });
});

describe('buildHandle line count', () => {
  const source = (toolOutput: unknown) => ({
    memId: 'mem_abcdefghijklmnop',
    toolName: 'read_log',
    toolUseId: 'toolu_1',
    toolInput: {},
    toolOutput,
    sizeChars: 100,
  });
  const sizeLine = (toolOutput: unknown) => buildHandle(source(toolOutput)).stub.split('\n')[2];

  it('R-LG-1 R-LG-2 the stub of a multi-line text result names its lines (CRLF and a last line without newline counted as the range reads them)', () => {
    expect(sizeLine('a\r\nb\r\nc')).toBe('size_original=100 chars, 3 lines');
    expect(sizeLine('a\nb\n')).toBe('size_original=100 chars, 2 lines');
    expect(sizeLine('one line')).toBe('size_original=100 chars');
    expect(sizeLine({ rows: ['a\nb'] })).toBe('size_original=100 chars');
    expect(buildHandle(source('a\nb'))).not.toHaveProperty('textLines');
  });
});
