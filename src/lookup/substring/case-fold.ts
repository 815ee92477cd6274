import { CASE_FOLD_RUNS } from './case-fold-table';

/**
 * Case-insensitive equality, defined once for both a substring and the text it is searched in: two
 * code points are equal when `new RegExp(a, 'iu')` matches `b` — the engine's simple case folding
 * (CaseFolding.txt's C and S mappings), so 'ſ' = 's', 'K' (Kelvin) = 'k', 'ẞ' = 'ß', 'Σ' = 'σ' =
 * 'ς', '𐐀' = '𐐨', but 'ß' ≠ 'ss' and the Turkish 'İ' and 'ı' equal only themselves. Each code
 * point folds to the lowest code point it is equal to (which may be the capital: 'a' → 'A'; only
 * equality matters), always within its own plane, so a folded text has the original's UTF-16
 * offsets one to one (the table's test checks every code point).
 */
export function foldCodePoint(code: number): number {
  return code < 0x10000 ? BMP_FOLDS[code] : (ASTRAL_FOLDS.get(code) ?? code);
}

/** The Basic Multilingual Plane's folds, one entry per UTF-16 unit (a surrogate folds to itself). */
const BMP_FOLDS = new Uint16Array(0x10000);
/** Folds above U+FFFF (Deseret, Osage, Adlam…): few, so a map. */
const ASTRAL_FOLDS = new Map<number, number>();

for (let code = 0; code < 0x10000; code += 1) BMP_FOLDS[code] = code;
for (const [first, last, step, delta] of CASE_FOLD_RUNS) {
  for (let code = first; code <= last; code += step) {
    if (code < 0x10000) BMP_FOLDS[code] = code + delta;
    else ASTRAL_FOLDS.set(code, code + delta);
  }
}
