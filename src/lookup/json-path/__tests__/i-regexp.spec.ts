import type { JSONValue } from 'json-p3';
import { linearTimeEnvironment, iRegexpToRe2 } from '../i-regexp';

const environment = linearTimeEnvironment();
const select = (path: string, document: JSONValue) => environment.compile(path).query(document).values();

describe('I-Regexp on RE2 (R-TN-10)', () => {
  it('R-TN-10 maps `.` to any character but \\n and \\r, leaving classes and escapes alone', () => {
    expect(iRegexpToRe2('a.b')).toBe('a[^\\n\\r]b');
    expect(iRegexpToRe2('[.]\\.')).toBe('[.]\\.');
    expect(iRegexpToRe2('\\p{Lu}+')).toBe('\\p{Lu}+');
  });

  it('R-TN-10 match() is a whole-string match and search() a substring one, as RFC 9535 asks', () => {
    expect(select("$[?match(@, 'a.c')]", ['abc', 'xabcx', 'a\nc', 'a\rc', 'a😀c'])).toEqual(['abc', 'a😀c']);
    expect(select("$[?search(@, 'b.')]", ['abc', 'xb', 'b\r'])).toEqual(['abc']);
    expect(select("$[?match(@, '[a-')]", ['a'])).toEqual([]);
    expect(select("$[?match(@, 'a')]", [1, null, 'a'])).toEqual(['a']);
  });

  it("R-TN-10 answers the backtracking pattern over forty a's at once", () => {
    const document = { items: [{ a: 'a'.repeat(40) }, { a: `${'a'.repeat(40)}b` }] };
    expect(select("$.items[?match(@.a,'(a|a)*b')]", document)).toEqual([{ a: `${'a'.repeat(40)}b` }]);
  });
});
