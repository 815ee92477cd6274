import fc from 'fast-check';
import { compactJsonbText, pathFetchChars, renderPathValue } from '../json-path-value';

/** Serializes the way PostgreSQL prints jsonb: `{"a": 1, "b": [1, 2]}`. */
function jsonbText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${jsonbText(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

const json = fc.jsonValue().filter((value) => JSON.stringify(value) !== undefined);

describe('compactJsonbText', () => {
  it('R-LG-2 drops the separator spaces and keeps string contents', () => {
    expect(compactJsonbText('{"a b": "c, d: e", "f": [1, 2, {"g": "\\" x"}]}')).toBe('{"a b":"c, d: e","f":[1,2,{"g":"\\" x"}]}');
    expect(compactJsonbText('"a \\\\"')).toBe('"a \\\\"');
  });

  it('R-LG-2 equals JSON.stringify for any value, and compacts a prefix to a prefix', () => {
    fc.assert(
      fc.property(json, fc.nat(), (value, cut) => {
        const text = jsonbText(value);
        const compact = compactJsonbText(text);
        expect(compact).toBe(JSON.stringify(value));
        expect(compact.startsWith(compactJsonbText(text.slice(0, cut % (text.length + 1))))).toBe(true);
      }),
    );
  });

  it('R-LG-2 fetching twice the ceiling always leaves more than the ceiling after compaction', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 200 }), (value, ceiling) => {
        const text = jsonbText(value);
        const fetched = text.slice(0, pathFetchChars(ceiling));
        if (fetched.length < text.length) expect(compactJsonbText(fetched).length).toBeGreaterThan(ceiling);
      }),
    );
  });
});

describe('renderPathValue', () => {
  it('R-LG-2 a string leaf comes back as the plain string, any other value as compact JSON', () => {
    expect(renderPathValue({ kind: 'number', body: '68.44', bodyLength: 5 }, 'items.3.price', 100)).toBe('68.44');
    expect(renderPathValue({ kind: 'string', body: 'K75 "pro"', bodyLength: 9 }, 'name', 100)).toBe('K75 "pro"');
    expect(renderPathValue({ kind: 'object', body: '{"a": [1, 2]}', bodyLength: 13 }, 'x', 100)).toBe('{"a":[1,2]}');
    expect(renderPathValue({ kind: 'null', body: 'null', bodyLength: 4 }, 'x', 100)).toBe('null');
  });

  it('R-LG-2 cuts a value over the ceiling and says how to narrow the path', () => {
    const list = `[${Array.from({ length: 100 }, (_, i) => i).join(', ')}]`;
    const fetched = list.slice(0, pathFetchChars(20));
    expect(renderPathValue({ kind: 'array', body: fetched, bodyLength: list.length }, 'items', 20)).toBe(
      `${compactJsonbText(list).slice(0, 20)}\n[… cut at the 20-char limit; narrow the json_path, e.g. "items.0"]`,
    );
    expect(renderPathValue({ kind: 'object', body: '{"a": 1, "b": 2}', bodyLength: 16 }, 'o', 5)).toBe(
      '{"a":\n[… cut at the 5-char limit; narrow the json_path, e.g. "o.<key>"]',
    );
    expect(renderPathValue({ kind: 'string', body: 'x'.repeat(40), bodyLength: 500 }, 's', 20)).toBe(
      `${'x'.repeat(20)}\n[… cut at the 20-char limit; the string is 500 chars; find the part you need with query=<substring>]`,
    );
  });
});
