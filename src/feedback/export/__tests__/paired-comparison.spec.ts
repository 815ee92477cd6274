import {
  binomialTail,
  comparePairedRuns,
  formatFixed,
  meanDifference,
  ratioToNumber,
  type RunResult,
  signTestPValue,
} from '../paired-comparison';

const run = (scores: Record<string, number>): RunResult[] => Object.entries(scores).map(([caseId, score]) => ({ caseId, score }));

describe('paired comparison', () => {
  it('R-FB-10 10 pairs with 7 wins, 2 losses, 1 tie: n = 9, p = 2·(C(9,0)+C(9,1)+C(9,2))/2^9 = 2·46/512, mean difference exact', () => {
    // Differences: +0.1 ×7, −0.2 ×2, 0 ×1 → sum 0.7 − 0.4 = 0.3, mean 0.03.
    const baseline = run({ c1: 0.5, c2: 0.5, c3: 0.5, c4: 0.5, c5: 0.5, c6: 0.5, c7: 0.5, c8: 0.7, c9: 0.7, c10: 0.4 });
    const candidate = run({ c1: 0.6, c2: 0.6, c3: 0.6, c4: 0.6, c5: 0.6, c6: 0.6, c7: 0.6, c8: 0.5, c9: 0.5, c10: 0.4 });
    const result = comparePairedRuns(baseline, candidate);
    expect(result).toEqual({
      pairs: 10,
      wins: 7,
      losses: 2,
      ties: 1,
      meanDifference: 0.03,
      signTestN: 9,
      pValue: 92 / 512,
      onlyInBaseline: [],
      onlyInCandidate: [],
    });
    expect(formatFixed(result.pValue)).toBe('0.1797');
    expect(formatFixed(result.meanDifference)).toBe('0.0300');
  });

  it('R-FB-10 all ties: p = 1, mean difference 0', () => {
    const result = comparePairedRuns(run({ a: 1, b: 2, c: 3 }), run({ a: 1, b: 2, c: 3 }));
    expect(result).toMatchObject({ pairs: 3, wins: 0, losses: 0, ties: 3, signTestN: 0, pValue: 1, meanDifference: 0 });
    expect(formatFixed(result.pValue)).toBe('1.0000');
  });

  it('R-FB-10 cases in only one file are reported and skipped', () => {
    const result = comparePairedRuns(run({ a: 1, b: 1, only_base: 5 }), run({ b: 2, a: 0, z_only_cand: 9, y_only_cand: 1 }));
    expect(result).toMatchObject({ pairs: 2, wins: 1, losses: 1, ties: 0, meanDifference: 0, pValue: 1 });
    expect(result.onlyInBaseline).toEqual(['only_base']);
    expect(result.onlyInCandidate).toEqual(['y_only_cand', 'z_only_cand']);
  });

  it('R-FB-10 no pairs at all: mean difference null (printed n/a), p = 1', () => {
    const result = comparePairedRuns(run({ a: 1 }), run({ b: 1 }));
    expect(result).toMatchObject({ pairs: 0, meanDifference: null, pValue: 1 });
    expect(formatFixed(result.meanDifference)).toBe('n/a');
  });

  it('R-FB-10 a caseId twice in one run, or a non-finite score, is refused', () => {
    expect(() =>
      comparePairedRuns(
        [
          { caseId: 'a', score: 1 },
          { caseId: 'a', score: 2 },
        ],
        [],
      ),
    ).toThrow(/baseline: caseId a appears more than once/);
    expect(() => comparePairedRuns([], [{ caseId: 'a', score: Number.NaN }])).toThrow(/candidate: caseId a has no finite numeric score/);
  });

  describe('the exact sign test', () => {
    it.each([
      // [wins, losses, hand-computed p]
      [0, 0, 1],
      [1, 0, 1], // 2·C(1,0)/2 = 1
      [5, 0, 2 / 32], // 2·1/32 = 0.0625
      [0, 5, 2 / 32],
      [7, 2, 92 / 512], // 2·(1+9+36)/512
      [2, 7, 92 / 512],
      [8, 2, (2 * (1 + 10 + 45)) / 1024], // 112/1024 = 0.109375
      [6, 4, (2 * (1 + 10 + 45 + 120 + 210)) / 1024], // 772/1024 = 0.75390625
    ])('R-FB-10 %i wins, %i losses', (wins, losses, expected) => {
      expect(signTestPValue(wins, losses)).toBe(expected);
    });

    it('R-FB-10 a balanced split is capped at 1', () => {
      expect(signTestPValue(5, 5)).toBe(1); // 2·Σ_{k≤5} C(10,k)/1024 = 2·638/1024 > 1
      expect(signTestPValue(500, 500)).toBe(1);
    });

    it('R-FB-10 stays exact for n in the thousands (BigInt), symmetric in wins and losses', () => {
      // 3000 wins, 0 losses: p = 2/2^3000, far below a double's range: 0, not NaN.
      expect(signTestPValue(3000, 0)).toBe(0);
      // 60 wins, 0 losses: 2^-59 exactly.
      expect(signTestPValue(60, 0)).toBe(2 ** -59);
      // n = 2000, 950 vs 1050: normal approximation z ≈ 2.21 → p ≈ 0.0271; the exact value lies close.
      const p = signTestPValue(950, 1050);
      expect(p).toBeGreaterThan(0.025);
      expect(p).toBeLessThan(0.03);
      expect(signTestPValue(1050, 950)).toBe(p);
      expect(formatFixed(p)).toMatch(/^0\.02\d\d$/);
    });

    it('R-FB-10 binomialTail sums binomial coefficients exactly', () => {
      expect(binomialTail(9, 2)).toBe(46n);
      expect(binomialTail(10, 10)).toBe(1024n);
      expect(binomialTail(100, 100)).toBe(2n ** 100n);
    });

    it('R-FB-10 rejects negative or fractional counts', () => {
      expect(() => signTestPValue(-1, 2)).toThrow(RangeError);
      expect(() => signTestPValue(1.5, 2)).toThrow(RangeError);
    });
  });

  describe('the mean difference', () => {
    it('R-FB-10 sums decimals exactly: 0.7 − 0.5 is 0.2, not 0.19999999999999996', () => {
      expect(meanDifference([{ baseline: 0.5, candidate: 0.7 }])).toBe(0.2);
      expect(
        meanDifference([
          { baseline: 0.1, candidate: 0.3 },
          { baseline: 0.2, candidate: 0.2 },
          { baseline: 0.3, candidate: 0.1 },
        ]),
      ).toBe(0);
      expect(
        meanDifference([
          { baseline: 1, candidate: 2 },
          { baseline: 0, candidate: 0 },
          { baseline: 0, candidate: 0 },
        ]),
      ).toBe(1 / 3);
      expect(meanDifference([{ baseline: 3, candidate: 1e-7 }])).toBe(-2.9999999);
      expect(meanDifference([{ baseline: 1e21, candidate: 2e21 }])).toBe(1e21);
    });

    it('R-FB-10 ratioToNumber rounds a huge exact ratio to the nearest double', () => {
      expect(ratioToNumber(1n, 3n)).toBe(1 / 3);
      expect(ratioToNumber(10n ** 40n, 3n * 10n ** 40n)).toBe(1 / 3);
      expect(ratioToNumber(-(10n ** 40n), 4n * 10n ** 40n)).toBe(-0.25);
    });
  });

  it('R-FB-10 formatFixed prints 4 decimals and never "-0.0000"', () => {
    expect(formatFixed(92 / 512)).toBe('0.1797');
    expect(formatFixed(-0.00001)).toBe('0.0000');
    expect(formatFixed(-0.25)).toBe('-0.2500');
  });
});
