import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens } from '../tokenizer';

/** The oracle: a run counted as countTokens defines it, 256 code points at a time, each piece by the tokenizer itself. */
function countByPieces(run: string): number {
  const points = Array.from(run);
  let total = 0;
  for (let start = 0; start < points.length; start += 256) total += countO200k(points.slice(start, start + 256).join(''));
  return total;
}

describe('countTokens over long runs (R-LG-2)', () => {
  const runs: [string, string][] = [
    ['white space', ' '.repeat(100_000)],
    ['letters, repeating', 'ab'.repeat(50_000)],
    ['punctuation', '-=+'.repeat(30_000)],
    // Astral letters: pieces are code points, not UTF-16 units.
    ['astral letters', '𝒜𝒝'.repeat(5_000)],
    ['letters, each piece new', Array.from({ length: 60_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join('')],
  ];

  it.each(runs)(
    'R-LG-2 %s: the count is the sum of the pieces, and the same counted again (the pieces then come from the cache)',
    (_name, run) => {
      const expected = countByPieces(run);
      expect(countTokens(run)).toBe(expected);
      expect(countTokens(run)).toBe(expected);
      // A window search's prefixes of the run: each is counted from the run's start, pieces aligned there.
      const points = Array.from(run);
      for (const length of [300, 5_000, 33_333]) {
        const prefix = points.slice(0, length).join('');
        expect(countTokens(prefix)).toBe(countByPieces(prefix));
      }
    },
  );
});
