import { engineCaseClasses, everyCodePoint, literalPattern } from '../../../../scripts/case-fold-table.cjs';
import { foldCodePoint } from '../case-fold';

const REGENERATE = 'the engine folds differently from src/lookup/substring/case-fold-table.ts: run node scripts/case-fold-table.cjs';

/** Code points grouped by their fold, groups of more than one only, each sorted. */
function foldClasses(codes: Iterable<number>): number[][] {
  const groups = new Map<number, number[]>();
  for (const code of codes) {
    const fold = foldCodePoint(code);
    groups.set(fold, [...(groups.get(fold) ?? []), code]);
  }
  return [...groups.values()].filter((group) => group.length > 1).map((group) => group.sort((a, b) => a - b));
}

const byFirst = (a: number[], b: number[]) => a[0] - b[0];

describe('foldCodePoint: one case-insensitive equality for queries and texts (R-LG-2)', () => {
  const engine = engineCaseClasses();
  const members = new Set(engine.flat());

  it('R-LG-2 groups code points exactly as the engine does for RegExp flags iu: every class of cased code points', () => {
    // A difference here means the engine's Unicode changed: regenerate the table (REGENERATE says how).
    const ours = foldClasses(members);
    expect(ours.sort(byFirst)).toEqual([...engine].sort(byFirst));
    // Not a trivial table: ASCII, the long s, the Kelvin sign, ß, sigma, Deseret…
    for (const group of [
      ['a', 'A'],
      ['s', 'S', 'ſ'],
      ['k', 'K', '\u212a'],
      ['ß', 'ẞ'],
      ['σ', 'Σ', 'ς'],
      ['𐐀', '𐐨'],
    ]) {
      expect(new Set(group.map((character) => foldCodePoint(character.codePointAt(0) as number))).size).toBe(1);
    }
    expect(foldCodePoint('İ'.codePointAt(0) as number)).not.toBe(foldCodePoint('i'.codePointAt(0) as number));
  });

  it('R-LG-2 no code point outside those classes is case-equal to one inside, by the engine', () => {
    const anyMember = new RegExp(`[${literalPattern(String.fromCodePoint(...members))}]`, 'giu');
    const matched = Array.from(everyCodePoint().matchAll(anyMember), (match) => match[0].codePointAt(0) as number);
    expect(new Set(matched)).toEqual(members);
  });

  it('R-LG-2 every code point folds within its plane (UTF-16 length kept, offsets map one to one), to a fixed point, and only cased ones move', () => {
    const moved: number[] = [];
    for (let code = 0; code < 0x110000; code += 1) {
      const fold = foldCodePoint(code);
      if (fold === code) continue;
      moved.push(code);
      if (code > 0xffff !== fold > 0xffff || foldCodePoint(fold) !== fold || !members.has(code)) {
        throw new Error(`U+${code.toString(16)} folds to U+${fold.toString(16)}: ${REGENERATE}`);
      }
    }
    expect(moved.length).toBe(engine.reduce((sum, group) => sum + group.length - 1, 0));
  });
});
