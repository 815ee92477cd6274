import { MAX_BODY_NESTING, nestingOverflowAt, refuseDeepNesting } from '../json-nesting';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('nestingOverflowAt: how deep a body nests, in one pass (R-TN-10)', () => {
  it('R-TN-10 the offset of the first bracket past the limit; null at or under it', () => {
    expect(nestingOverflowAt(bytes('[[[]]]'), 3)).toBeNull();
    expect(nestingOverflowAt(bytes('[[[[]]]]'), 3)).toBe(3);
    expect(nestingOverflowAt(bytes('{"a":{"b":[{"c":1}]}}'), 3)).toBe(11);
    expect(nestingOverflowAt(bytes('[{},[],{}]'), 2)).toBeNull();
  });

  it('R-TN-10 brackets inside strings do not count, escaped quotes and backslashes included', () => {
    expect(nestingOverflowAt(bytes('["[[[[", "{{\\"[[[", "\\\\", "é[["]'), 1)).toBeNull();
    // After an escaped backslash the string ends: the bracket that follows counts.
    expect(nestingOverflowAt(bytes('["\\\\", [[]]]'), 2)).toBe(8);
  });

  it('R-TN-10 multi-byte characters are read byte by byte without a false bracket', () => {
    expect(nestingOverflowAt(bytes(`["${'日本語🙂'.repeat(100)}", {"ключ": ["ü"]}]`), 3)).toBeNull();
  });

  it('R-TN-10 text that is not JSON is left to the parser: the pass never throws', () => {
    for (const text of ['', ']]]]', '"unterminated [[[[', '{{{', '\\']) expect(() => nestingOverflowAt(bytes(text), 2)).not.toThrow();
    expect(nestingOverflowAt(bytes(']]][[['), 2)).toBeNull();
  });

  it('R-TN-10 refuseDeepNesting throws a 400 meant for the client past MAX_BODY_NESTING, and nothing at it', () => {
    const at = (levels: number) => bytes(`${'['.repeat(levels)}${']'.repeat(levels)}`);
    expect(() => refuseDeepNesting(undefined, undefined, at(MAX_BODY_NESTING))).not.toThrow();
    expect(() => refuseDeepNesting(undefined, undefined, at(MAX_BODY_NESTING + 1))).toThrow(
      expect.objectContaining({ status: 400, expose: true, message: expect.stringMatching(/more than 256 levels deep \(at byte 256\)/) }),
    );
  });
});
