import { payloadTextOfJson } from '../../text/json-text';
import { STORED_JSON_TYPES, StoredJson, stringifyWithStoredJson } from '../stored-json';

describe('StoredJson (R-TN-10: a stored payload is never parsed on the event loop to be sent)', () => {
  it('R-TN-10: a response splices each stored text as it is, byte for byte, where the value would be', () => {
    const stored = new StoredJson('[{}, {"a": 1, "b": "x\\ny"}]');
    const json = stringifyWithStoredJson({
      data: {
        results: [
          { id: 'r1', toolOutput: stored },
          { id: 'r2', toolOutput: 'plain' },
        ],
      },
    });
    expect(json).toBe('{"data":{"results":[{"id":"r1","toolOutput":[{}, {"a": 1, "b": "x\\ny"}]},{"id":"r2","toolOutput":"plain"}]}}');
    expect(JSON.parse(json)).toEqual({
      data: {
        results: [
          { id: 'r1', toolOutput: [{}, { a: 1, b: 'x\ny' }] },
          { id: 'r2', toolOutput: 'plain' },
        ],
      },
    });
  });

  it('R-TN-10: many stored values, strings among them, keep their places and order', () => {
    const values: unknown[] = ['a "quoted" string', 42, null, { nested: [1, 2] }, 'ünïcödé ✓'];
    const response = { list: values.map((value) => new StoredJson(JSON.stringify(value))) };
    expect(JSON.parse(stringifyWithStoredJson(response))).toEqual({ list: values });
  });

  it("R-TN-10: a string elsewhere in the response that looks like a placeholder stays what it was (the marker is the response's own)", () => {
    const lookalike = '\u0000stored-json:AAAAAAAAAAAAAAAA:0';
    const json = stringifyWithStoredJson({ name: lookalike, toolOutput: new StoredJson('{"k": true}') });
    expect(JSON.parse(json)).toEqual({ name: lookalike, toolOutput: { k: true } });
  });

  it('R-TN-10: a serializer that does not splice still writes the value', () => {
    expect(JSON.stringify({ toolOutput: new StoredJson('{"a": [1, 2]}') })).toBe('{"toolOutput":{"a":[1,2]}}');
    expect(stringifyWithStoredJson({ plain: [1, 'two'] })).toBe(JSON.stringify({ plain: [1, 'two'] }));
  });

  it('R-TN-10: its bytes are its UTF-8 bytes, escapes as written', () => {
    expect(new StoredJson('"\\u0001é"').bytes).toBe(Buffer.byteLength('"\\u0001é"', 'utf8'));
    expect(new StoredJson('"\\u0001é"').bytes).toBe(10);
  });

  it('R-TN-10: json and jsonb columns are read as StoredJson, every other type as the driver parses it', () => {
    const jsonb = STORED_JSON_TYPES.getTypeParser(3802)('{"a": 1}');
    expect(jsonb).toBeInstanceOf(StoredJson);
    expect((jsonb as StoredJson).text).toBe('{"a": 1}');
    expect(STORED_JSON_TYPES.getTypeParser(114)('[1]')).toBeInstanceOf(StoredJson);
    expect(STORED_JSON_TYPES.getTypeParser(23)('42')).toBe(42);
    expect(STORED_JSON_TYPES.getTypeParser(16)('t')).toBe(true);
  });

  it("R-LG-2: a lookup's text of a stored payload is payloadText of the value the driver would have parsed", () => {
    // PostgreSQL's rendering: spaces after separators, keys by length then bytes, exponents expanded.
    expect(payloadTextOfJson('{"b": 1, "aa": [1, 2.50], "10": 1e+21}')).toBe(
      JSON.stringify(JSON.parse('{"b": 1, "aa": [1, 2.50], "10": 1e+21}')),
    );
    expect(payloadTextOfJson('{"b": 1, "aa": [1, 2.50]}')).toBe('{"b":1,"aa":[1,2.5]}');
    expect(payloadTextOfJson('"a\\nstring"')).toBe('a\nstring');
  });
});
