import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { countTokens } from './tokenizer';

/** A JSON array's length in characters (of `JSON.stringify`) and its exact token count. */
export interface CountedJson {
  chars: number;
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

/** Pieces shorter than this are counted directly: tokenizing them costs about what a lookup does. */
const CACHED_FROM_CHARS = 256;

/** Token counts of recently seen pieces by content hash (counts only: no text is kept). */
const pieceCounts = new LRUCache<string, number>({ max: 20_000 });

function pieceKey(piece: string): string | null {
  return piece.length < CACHED_FROM_CHARS ? null : createHash('sha256').update(piece).digest('base64');
}

/**
 * Each text's count where it is known without tokenizing (a short text is not looked up:
 * `undefined`, like a piece not seen lately), and a function that remembers counts made since.
 */
export function knownCounts(texts: readonly string[]): {
  counts: (number | undefined)[];
  remember: (index: number, tokens: number) => void;
} {
  const keys = texts.map(pieceKey);
  return {
    counts: keys.map((key) => (key === null ? undefined : pieceCounts.get(key))),
    remember: (index, tokens) => {
      const key = keys[index];
      if (key !== null) pieceCounts.set(key, tokens);
    },
  };
}

/** `countTokens` of each text, with the counts of pieces seen lately reused. */
function countEachCached(texts: readonly string[]): number[] {
  const { counts, remember } = knownCounts(texts);
  return counts.map((known, index) => {
    if (known !== undefined) return known;
    const tokens = countTokens(texts[index]);
    remember(index, tokens);
    return tokens;
  });
}

/**
 * `JSON.stringify(items)`'s length and `countTokens` of it, exactly, element by element.
 * `serialized` remembers each element's JSON across calls of one request, so an element shared by
 * two lists (a message compaction left alone) is serialized once.
 */
export function countJsonArray(items: readonly object[], serialized: WeakMap<object, string> = new WeakMap()): CountedJson {
  const parts = serializeEach(items, serialized);
  return { chars: jsonArrayChars(parts), tokens: sum(countEachCached(countedTexts(parts))) };
}

/** The length of `[parts joined by ,]`. */
export function jsonArrayChars(parts: readonly string[]): number {
  return parts.reduce((chars, part) => chars + part.length, 2 + Math.max(0, parts.length - 1));
}

/**
 * The texts whose counts add up to the count of `[parts joined by ,]`: its pieces, one per
 * element, or the whole text when a part is not an object whose first key starts with a letter.
 */
export function countedTexts(parts: readonly string[]): string[] {
  if (!countsPieceByPiece(parts)) return [`[${parts.join(',')}]`];
  return [HEAD, ...parts.map((part, index) => jsonArrayPiece(part, index === parts.length - 1))];
}

export function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
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
