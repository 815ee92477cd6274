/**
 * Paired comparison of a baseline and a candidate run over the same evaluation cases (R-FB-10).
 * Pure: no Nest, no database, no file system.
 *
 * A run result is `{ caseId, score }` per case. Cases are paired by caseId; a case present in
 * only one run is reported and left out. Over the pairs: wins (candidate > baseline), losses
 * (candidate < baseline), ties, the mean of (candidate − baseline) over all pairs, and the exact
 * two-sided sign test over the non-tied pairs:
 *
 *   n = wins + losses,  p = min(1, 2 · Σ_{k ≤ min(wins, losses)} C(n, k) / 2^n)
 *
 * computed with BigInt, so it stays exact for any n (the ratio is rounded once, to a double).
 */

export interface RunResult {
  caseId: string;
  score: number;
}

export interface PairedComparison {
  /** Pairs compared (ties included). */
  pairs: number;
  wins: number;
  losses: number;
  ties: number;
  /** Mean of candidate − baseline over all pairs; null without pairs. */
  meanDifference: number | null;
  /** Non-tied pairs: the sign test's n. */
  signTestN: number;
  /** Exact two-sided sign-test p-value; 1 when every pair ties (or there are none). */
  pValue: number;
  /** Case ids present only in the baseline run / only in the candidate run (skipped), sorted. */
  onlyInBaseline: string[];
  onlyInCandidate: string[];
}

/** Pairs the two runs by caseId and compares them. A caseId repeated within one run is refused. */
export function comparePairedRuns(baseline: readonly RunResult[], candidate: readonly RunResult[]): PairedComparison {
  const base = indexRun(baseline, 'baseline');
  const cand = indexRun(candidate, 'candidate');
  const pairs: { baseline: number; candidate: number }[] = [];
  const onlyInBaseline: string[] = [];
  for (const [caseId, score] of base) {
    const other = cand.get(caseId);
    if (other === undefined) onlyInBaseline.push(caseId);
    else pairs.push({ baseline: score, candidate: other });
  }
  const onlyInCandidate = [...cand.keys()].filter((caseId) => !base.has(caseId));

  let wins = 0;
  let losses = 0;
  for (const pair of pairs) {
    if (pair.candidate > pair.baseline) wins += 1;
    else if (pair.candidate < pair.baseline) losses += 1;
  }
  const ties = pairs.length - wins - losses;
  return {
    pairs: pairs.length,
    wins,
    losses,
    ties,
    meanDifference: meanDifference(pairs),
    signTestN: wins + losses,
    pValue: signTestPValue(wins, losses),
    onlyInBaseline: onlyInBaseline.sort(),
    onlyInCandidate: onlyInCandidate.sort(),
  };
}

/** Exact two-sided sign test (binomial, p = ½) for `wins` against `losses`, ties already dropped. */
export function signTestPValue(wins: number, losses: number): number {
  if (!Number.isInteger(wins) || !Number.isInteger(losses) || wins < 0 || losses < 0) {
    throw new RangeError('wins and losses must be non-negative integers');
  }
  const n = wins + losses;
  if (n === 0) return 1;
  const tail = binomialTail(n, Math.min(wins, losses));
  const twice = 2n * tail;
  const total = 1n << BigInt(n);
  if (twice >= total) return 1;
  return ratioToNumber(twice, total);
}

/** Σ_{k=0..m} C(n, k), exactly. */
export function binomialTail(n: number, m: number): bigint {
  let term = 1n; // C(n, 0)
  let sum = 1n;
  const bigN = BigInt(n);
  for (let k = 1; k <= m; k += 1) {
    const bigK = BigInt(k);
    term = (term * (bigN - bigK + 1n)) / bigK; // C(n, k) = C(n, k−1) · (n − k + 1) / k, exact
    sum += term;
  }
  return sum;
}

/**
 * Mean of candidate − baseline. Scores are summed as exact decimals (every finite double's
 * shortest decimal form, scaled to integers), so 0.7 − 0.5 counts as 0.2, not 0.19999999999999996;
 * the mean is rounded once, at the end.
 */
export function meanDifference(pairs: readonly { baseline: number; candidate: number }[]): number | null {
  if (pairs.length === 0) return null;
  const decimals = pairs.map((p) => [toDecimal(p.baseline), toDecimal(p.candidate)] as const);
  const scale = Math.max(0, ...decimals.flat().map((d) => d.scale));
  let sum = 0n;
  for (const [b, c] of decimals) sum += rescale(c, scale) - rescale(b, scale);
  const mean = ratioToNumber(sum, BigInt(pairs.length) * 10n ** BigInt(scale));
  return Object.is(mean, -0) ? 0 : mean;
}

interface Decimal {
  /** value = digits / 10^scale */
  digits: bigint;
  scale: number;
}

/** The exact decimal JavaScript prints for a finite number (its shortest round-trip form). */
function toDecimal(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`score must be a finite number, got ${value}`);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/u.exec(String(value));
  if (!match) throw new RangeError(`unexpected number format: ${value}`);
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let scale = fraction.length - Number(exponent);
  let digits = BigInt(`${whole}${fraction}`);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: sign === '-' ? -digits : digits, scale };
}

function rescale(d: Decimal, scale: number): bigint {
  return d.digits * 10n ** BigInt(scale - d.scale);
}

/** numerator / denominator (denominator > 0) as the nearest double, or very close to it. */
export function ratioToNumber(numerator: bigint, denominator: bigint): number {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const limit = 2n ** 53n;
  const negative = numerator < 0n;
  const num = negative ? -numerator : numerator;
  let result: number;
  if (num <= limit && denominator <= limit) {
    result = Number(num) / Number(denominator); // both exact: IEEE division rounds once
  } else {
    // Scale the quotient to ~64 significant bits, divide exactly, then scale back.
    const shift = bitLength(denominator) - bitLength(num) + 64;
    const quotient = shift >= 0 ? (num << BigInt(shift)) / denominator : num / (denominator << BigInt(-shift));
    result = scaleByPowerOfTwo(Number(quotient), -shift);
  }
  return negative ? -result : result;
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/** x · 2^e in steps, so an intermediate power of two does not underflow or overflow first. */
function scaleByPowerOfTwo(x: number, e: number): number {
  let result = x;
  let rest = e;
  while (rest !== 0 && result !== 0 && Number.isFinite(result)) {
    const step = Math.max(-1000, Math.min(1000, rest));
    result *= 2 ** step;
    rest -= step;
  }
  return result;
}

function indexRun(run: readonly RunResult[], name: string): Map<string, number> {
  const byCase = new Map<string, number>();
  for (const { caseId, score } of run) {
    if (byCase.has(caseId)) throw new RangeError(`${name}: caseId ${caseId} appears more than once`);
    if (typeof score !== 'number' || !Number.isFinite(score)) throw new RangeError(`${name}: caseId ${caseId} has no finite numeric score`);
    byCase.set(caseId, score);
  }
  return byCase;
}

/** Formats a p-value or a mean with a fixed number of decimals ("n/a" for null). */
export function formatFixed(value: number | null, decimals = 4): string {
  if (value === null) return 'n/a';
  const text = value.toFixed(decimals);
  return /^-0\.?0*$/u.test(text) ? text.slice(1) : text;
}
