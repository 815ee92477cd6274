import type { PrefixTokenizer } from '../common/text/tokenizer';
import { TokenPieces } from './answer-window';

/**
 * Payload texts as the model saw them, each with its counted token pieces, for the walks lookup
 * serves: a model reads a large result window after window, and each window would otherwise
 * fetch, parse and serialize the whole payload again and count its tokens again. Keyed by mem id
 * (a snapshot's payload never changes), bounded in characters, the least recently used going first.
 * It decides nothing about access: every lookup still asks the database for the actor's row, and
 * a row gone (deleted, another user's, another generation's) reads as not found whatever is here.
 */
export class ServedTextCache {
  private readonly entries = new Map<string, TokenPieces>();
  private chars = 0;

  constructor(
    private readonly maxChars: number,
    private readonly tokenizer: PrefixTokenizer,
  ) {}

  /** The kept text and pieces of a mem id, now the most recently used. */
  get(memId: string): TokenPieces | undefined {
    const pieces = this.entries.get(memId);
    if (pieces !== undefined) {
      this.entries.delete(memId);
      this.entries.set(memId, pieces);
    }
    return pieces;
  }

  /** Pieces of `text`, kept unless the text alone is over the bound. */
  put(memId: string, text: string): TokenPieces {
    this.delete(memId);
    const pieces = new TokenPieces(text, this.tokenizer);
    if (text.length > this.maxChars) return pieces;
    for (const [oldest, kept] of this.entries) {
      if (this.chars + text.length <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= kept.text.length;
    }
    this.entries.set(memId, pieces);
    this.chars += text.length;
    return pieces;
  }

  delete(memId: string): void {
    const pieces = this.entries.get(memId);
    if (pieces === undefined) return;
    this.entries.delete(memId);
    this.chars -= pieces.text.length;
  }

  /** Characters kept now (at most the bound). */
  get size(): number {
    return this.chars;
  }
}
