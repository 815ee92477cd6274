import fc from 'fast-check';
import { countingTasks } from '../counting-tasks';
import { countTokens } from '../tokenizer';

/** Each owner's count as the sum of its pieces' counts. */
function countsByPieces(texts: readonly string[], pieceChars: number): number[] {
  const counts = texts.map(() => 0);
  for (const task of countingTasks(texts, pieceChars))
    task.owners.forEach((owner, index) => (counts[owner] += countTokens(task.texts[index])));
  return counts;
}

describe('countingTasks (R-TN-10: large texts counted in turns)', () => {
  it('R-TN-10 the pieces of each text add up to the text, and their counts to its count', () => {
    const words = fc.constantFrom(
      'alpha',
      'Beta',
      "it's",
      ' ',
      '\n',
      '{"k":',
      '"v"}',
      ',',
      '12.5',
      'é',
      '😀',
      '中文',
      'x'.repeat(300),
      '!!'.repeat(200),
    );
    const text = fc.array(words, { maxLength: 120 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.integer({ min: 8, max: 400 }), (texts, pieceChars) => {
        const joined = texts.map(() => '');
        for (const task of countingTasks(texts, pieceChars)) task.owners.forEach((owner, index) => (joined[owner] += task.texts[index]));
        expect(joined).toEqual(texts);
        expect(countsByPieces(texts, pieceChars)).toEqual(texts.map(countTokens));
      }),
      { numRuns: 300 },
    );
  });

  it('R-TN-10 a task holds at most about the piece size, small texts together', () => {
    const json = JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `item ${i}` })));
    const tasks = countingTasks([json, 'a', 'b'], 10_000);
    expect(tasks.length).toBeGreaterThan(json.length / 10_000);
    // A cut lands at the first boundary after the piece size: a few characters past it at most.
    for (const task of tasks) expect(task.chars).toBeLessThan(10_000 + 32);
    expect(tasks.at(-1)?.owners).toEqual([0, 1, 2]);
  });

  it('R-TN-10 a text with no point to cut at stays whole', () => {
    const cjk = '中'.repeat(5_000);
    expect(countingTasks([cjk], 1_000)).toEqual([{ texts: [cjk], owners: [0], chars: 5_000 }]);
  });

  it('R-TN-10 a cut is looked for in the piece after the piece size only: a point further on leaves the rest whole', () => {
    // `[{},{},…]` has no cut point; the one at its end is out of reach of the first piece's search.
    const text = `${'{},'.repeat(3_000)}end, ${'x '.repeat(100)}`;
    expect(countingTasks([text], 1_000)).toEqual([{ texts: [text], owners: [0], chars: text.length }]);
    // Within reach, it is taken.
    const near = `${'{},'.repeat(400)}end, ${'x '.repeat(1_000)}`;
    const pieces = countingTasks([near], 1_000).flatMap((task) => task.texts);
    expect(pieces[0]).toBe(near.slice(0, 1_203));
    expect(pieces.join('')).toBe(near);
  });
});
