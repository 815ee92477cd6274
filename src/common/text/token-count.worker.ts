/*
 * Runs in a worker thread of the token-count pool (token-counter.ts): tokenizing a megabyte of
 * JSON takes the tokenizer about half a second, which on the main thread would stall every
 * other request of every team for as long.
 */
import { countTokens } from './tokenizer';

export function countText(text: string): number {
  return countTokens(text);
}

export function countTexts(texts: string[]): number[] {
  return texts.map(countTokens);
}
