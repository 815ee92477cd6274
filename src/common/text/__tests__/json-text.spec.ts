import fc from 'fast-check';
import { jsonLongerThan } from '../json-text';

describe('jsonLongerThan', () => {
  it('R-LG-3 answers exactly what JSON.stringify(value).length > limit would, for any JSON value and limit', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(400), (value, limit) => {
        expect(jsonLongerThan(value, limit)).toBe(JSON.stringify(value).length > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('R-LG-3 counts escapes, nesting and the boundary itself', () => {
    const value = { a: ['x"y', null, 1.5, true], 'k\n': {} };
    const length = JSON.stringify(value).length;
    expect(jsonLongerThan(value, length - 1)).toBe(true);
    expect(jsonLongerThan(value, length)).toBe(false);
    expect(jsonLongerThan([], 2)).toBe(false);
    expect(jsonLongerThan([], 1)).toBe(true);
  });
});
