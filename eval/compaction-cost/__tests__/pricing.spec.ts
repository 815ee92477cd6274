import { outputCost, PRICE_MODEL, priceRun } from '../pricing';

describe('cost eval pricing (R-LG-3)', () => {
  it('R-LG-3 the documented model: $3 per million input tokens, cache reads 0.1×, cache writes 1.25×, output $15', () => {
    expect(PRICE_MODEL).toEqual({ basePerMillion: 3, cacheReadMultiplier: 0.1, cacheWriteMultiplier: 1.25, outputPerMillion: 15 });
    expect(outputCost(1_000_000)).toBe(15);
  });

  it('R-LG-3 the shared prefix is read from the cache, the rest of each request written to it', () => {
    const cost = priceRun([
      { inputTokens: 100_000, sharedTokens: 0, cacheBreak: false },
      { inputTokens: 150_000, sharedTokens: 100_000, cacheBreak: false },
      { inputTokens: 60_000, sharedTokens: 10_000, cacheBreak: true },
    ]);
    expect(cost).toMatchObject({
      calls: 3,
      inputTokens: 310_000,
      cacheReadTokens: 110_000,
      cacheWriteTokens: 200_000,
      cacheBreaks: 1,
      maxInputTokens: 150_000,
    });
    // 110k reads at $0.30 per million, 200k writes at $3.75 per million.
    expect(cost.inputCost).toBeCloseTo(0.033 + 0.75, 10);
    expect(cost.uncachedCost).toBeCloseTo(0.93, 10);
  });

  it('R-LG-3 a run that never shares a prefix costs 1.25× the uncached price', () => {
    const cost = priceRun([
      { inputTokens: 1000, sharedTokens: 0, cacheBreak: false },
      { inputTokens: 1000, sharedTokens: 0, cacheBreak: true },
    ]);
    expect(cost.inputCost).toBeCloseTo(cost.uncachedCost * 1.25, 12);
  });
});
