import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Counts tokens the way the model will; the block budget (R-RC-2) is measured with it. */
export interface Tokenizer {
  count(text: string): number;
}

// Tool outputs are untrusted text: "<|endoftext|>" must count as plain text, not throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * o200k_base (the GPT-4o family's BPE) from gpt-tokenizer: maintained, pure JS, ships its
 * vocabulary inside the package, so nothing is downloaded at run time.
 */
export const o200kTokenizer: Tokenizer = {
  count: (text) => countTokens(text, PLAIN_TEXT),
};
