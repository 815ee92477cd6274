import fc from 'fast-check';
import { CodePointPrefixes, ELLIPSIS, keepCodePoints } from '../text-bounds';

describe('CodePointPrefixes', () => {
  const anyText = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
  );

  it('R-LG-1 cuts a stub field exactly as keepCodePoints does, lone surrogates included', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: -2, max: 210 }), (text, keep) => {
        const points = Array.from(text);
        const prefixes = new CodePointPrefixes(text);
        expect(prefixes.length).toBe(points.length);
        expect(prefixes.keep(keep)).toBe(keepCodePoints(points, keep));
      }),
      { numRuns: 2000 },
    );
  });

  it('R-LG-1 never splits a surrogate pair, and trims before the ellipsis', () => {
    const prefixes = new CodePointPrefixes('ab \u{1F600}\u{1F600} \ud800x');
    expect(prefixes.length).toBe(8);
    expect(prefixes.keep(3)).toBe(`ab${ELLIPSIS}`);
    expect(prefixes.keep(4)).toBe(`ab \u{1F600}${ELLIPSIS}`);
    expect(prefixes.keep(7)).toBe(`ab \u{1F600}\u{1F600} \ud800${ELLIPSIS}`);
    expect(prefixes.keep(8)).toBe('ab \u{1F600}\u{1F600} \ud800x');
  });
});
