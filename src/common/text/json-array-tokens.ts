import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { countTokens } from './tokenizer';

/** A JSON array serialized once, with its exact token count. */
export interface CountedJson {
  json: string;
  tokens: number;
}

/*
 * The count of `[{"a…},{"b…}]` is the sum of the counts of `[{"`, `a…},{"`, `b…}]`: the
 * tokenizer's pre-tokenizer (and countTokens' long-run split) always ends a piece right before
 * the first key's letter, because the punctuation `,{"` in front of it is taken as one greedy
 * run that stops at the letter. So each element's piece can be counted on its own, and a piece
 * seen before (an old message resent every turn) need not be tokenized again.
 */
const ELEMENT_START = /^\{"[A-Za-z]/;
const HEAD = '[{"';

/** Pieces shorter than this are counted directly: hashing them would cost about as much. */
const CACHED_FROM_CHARS = 2048;

/** Token counts of recently seen pieces by content hash (counts only: no text is kept). */
const pieceCounts = new LRUCache<string, number>({ max: 20_000 });

function countPiece(piece: string): number {
  if (piece.length < CACHED_FROM_CHARS) return countTokens(piece);
  const key = createHash('sha256').update(piece).digest('base64');
  let tokens = pieceCounts.get(key);
  if (tokens === undefined) {
    tokens = countTokens(piece);
    pieceCounts.set(key, tokens);
  }
  return tokens;
}

/**
 * `JSON.stringify(items)` and `countTokens` of it, exactly, element by element. `serialized`
 * remembers each element's JSON across calls of one request, so an element shared by two lists
 * (a message compaction left alone) is serialized once.
 */
export function countJsonArray(items: readonly object[], serialized: WeakMap<object, string> = new WeakMap()): CountedJson {
  const parts = serializeEach(items, serialized);
  return { json: `[${parts.join(',')}]`, tokens: countJsonParts(parts) };
}

/** Each item's JSON, from `serialized` when it was serialized before. */
export function serializeEach(items: readonly object[], serialized: WeakMap<object, string>): string[] {
  return items.map((item) => {
    let json = serialized.get(item);
    if (json === undefined) {
      json = JSON.stringify(item);
      serialized.set(item, json);
    }
    return json;
  });
}

/**
 * `countTokens` of `[parts joined by ,]`, counted piece by piece with the pieces' counts cached.
 * Falls back to counting the whole text when a part is not an object whose first key starts
 * with a letter.
 */
export function countJsonParts(parts: readonly string[]): number {
  if (!countsPieceByPiece(parts)) return countTokens(`[${parts.join(',')}]`);
  let tokens = countTokens(HEAD);
  parts.forEach((part, index) => {
    tokens += countPiece(jsonArrayPiece(part, index === parts.length - 1));
  });
  return tokens;
}

/** Whether the array's count is the sum of its elements' pieces (every element an object whose first key starts with a letter). */
export function countsPieceByPiece(parts: readonly string[]): boolean {
  return parts.length > 0 && parts.every((part) => ELEMENT_START.test(part));
}

/**
 * The piece of an element's JSON the array's count adds up: from its first key's letter to the
 * next element's `{"` (or the closing `]`). Replacing one element changes only its piece's count.
 */
export function jsonArrayPiece(part: string, isLast: boolean): string {
  return `${part.slice(2)}${isLast ? ']' : ',{"'}`;
}
