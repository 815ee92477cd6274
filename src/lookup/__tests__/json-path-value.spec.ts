import fc from 'fast-check';
import { compactJsonbText, pathFetchChars, pathValueText } from '../json-path-value';

/** Serializes the way PostgreSQL prints jsonb: `{"a": 1, "b": [1, 2]}`. */
function jsonbText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${jsonbText(item)}`)
      .join(', ')}}`;
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

describe('pathValueText', () => {
  it('R-LG-2 a string leaf comes back as the plain string, any other value as compact JSON', () => {
    expect(pathValueText({ kind: 'number', body: '68.44', bodyLength: 5, complete: true })).toEqual({
      text: '68.44',
      whole: { complete: true },
    });
    expect(pathValueText({ kind: 'string', body: 'K75 "pro"', bodyLength: 9, complete: true }).text).toBe('K75 "pro"');
    expect(pathValueText({ kind: 'object', body: '{"a": [1, 2]}', bodyLength: 13, complete: true }).text).toBe('{"a":[1,2]}');
    expect(pathValueText({ kind: 'null', body: 'null', bodyLength: 4, complete: true }).text).toBe('null');
  });

  it('R-LG-2 a value fetched in part gives the start of its compact text and says it is a part, of about its jsonb size', () => {
    const list = `[${Array.from({ length: 100 }, (_, i) => i).join(', ')}]`;
    const fetched = list.slice(0, pathFetchChars(20));
    const part = pathValueText({ kind: 'array', body: fetched, bodyLength: list.length, complete: false });
    expect(compactJsonbText(list).startsWith(part.text)).toBe(true);
    expect(part.text.length).toBeGreaterThanOrEqual(20);
    expect(part.whole).toEqual({ complete: false, approximateChars: list.length });
  });
});
