/*
 * Runs in a worker thread of the token-count pool (token-counter.ts): tokenizing a megabyte of
 * JSON takes the tokenizer a tenth of a second or more, which on the main thread would stall every
 * other request of every team for as long.
 */
import { pooledTaskHandler } from '../workers/pooled-task';
import { countTokens } from './tokenizer';

export default pooledTaskHandler((texts: string[]): number[] => texts.map(countTokens));
