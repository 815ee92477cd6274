import { expandArrays, positional } from '../run-sql';

describe('runSql bindings', () => {
  it('expands each array value into one placeholder per element, in order (R-TR-1 batch statements)', () => {
    expect(expandArrays('select 1 where a = ? and b in (?) and c = any(array[?]) and d = ?', ['x', ['p', 'q'], [1, 2, 3], null])).toEqual({
      sql: 'select 1 where a = ? and b in (?, ?) and c = any(array[?, ?, ?]) and d = ?',
      params: ['x', 'p', 'q', 1, 2, 3, null],
    });
  });

  it('leaves an escaped \\? alone and passes scalar values as they are', () => {
    expect(expandArrays("select '{}'::jsonb \\? 'k', ?", [['a']])).toEqual({ sql: "select '{}'::jsonb \\? 'k', ?", params: ['a'] });
    expect(expandArrays('select ?', [true])).toEqual({ sql: 'select ?', params: [true] });
  });

  it('numbers the placeholders as pg wants them; an escaped \\? stays a question mark', () => {
    expect(positional("select ?, ?::int, '{}'::jsonb \\? 'k', ?")).toBe("select $1, $2::int, '{}'::jsonb ? 'k', $3");
  });
});
