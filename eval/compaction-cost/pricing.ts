import type { RequestMeasure } from './prompt-cache';

/**
 * The price model of the cost eval (docs/compaction-cost.md), as providers published prompt
 * caching in 2025: input at a base price per million tokens; a token read from the cache at 0.1×
 * that, a token written to it (every token of a request past the prefix it shares with the one
 * before) at 1.25×. Every call is assumed to come within the cache's lifetime of the one before.
 */
export interface PriceModel {
  /** Dollars per million uncached input tokens. */
  basePerMillion: number;
  cacheReadMultiplier: number;
  cacheWriteMultiplier: number;
  /** Dollars per million output tokens: only the model's own calls of recall_tool_result differ between strategies. */
  outputPerMillion: number;
}

export const PRICE_MODEL: PriceModel = { basePerMillion: 3, cacheReadMultiplier: 0.1, cacheWriteMultiplier: 1.25, outputPerMillion: 15 };

export interface RunCost {
  calls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheBreaks: number;
  /** The largest single request, in tokens: what the context window must hold. */
  maxInputTokens: number;
  /** Dollars for the input, cache reads and writes priced as above. */
  inputCost: number;
  /** Dollars for the same input with no cache at all: every token at the base price. */
  uncachedCost: number;
}

/** The run's requests, priced. */
export function priceRun(requests: readonly RequestMeasure[], model: PriceModel = PRICE_MODEL): RunCost {
  let inputTokens = 0;
  let cacheReadTokens = 0;
  let cacheBreaks = 0;
  let maxInputTokens = 0;
  for (const request of requests) {
    inputTokens += request.inputTokens;
    cacheReadTokens += request.sharedTokens;
    if (request.cacheBreak) cacheBreaks++;
    maxInputTokens = Math.max(maxInputTokens, request.inputTokens);
  }
  const cacheWriteTokens = inputTokens - cacheReadTokens;
  const perToken = model.basePerMillion / 1_000_000;
  return {
    calls: requests.length,
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    cacheBreaks,
    maxInputTokens,
    inputCost: (cacheReadTokens * model.cacheReadMultiplier + cacheWriteTokens * model.cacheWriteMultiplier) * perToken,
    uncachedCost: inputTokens * perToken,
  };
}

/** Dollars for `tokens` of model output. */
export function outputCost(tokens: number, model: PriceModel = PRICE_MODEL): number {
  return (tokens * model.outputPerMillion) / 1_000_000;
}
