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

/** Texts shorter than this are counted directly: tokenizing them costs about what a lookup does. */
const CACHED_FROM_CHARS = 256;

/** Token counts of recently seen texts by content hash (counts only: no text is kept). */
const knownTokenCounts = new LRUCache<string, number>({ max: 20_000 });

/**
 * A text to count, and how its cache key is hashed: a piece of an array element is a
 * concatenation (`part.slice(2) + tail`), and hashing a concatenation of a large string is about
 * five times slower than hashing the flat string it was cut from, so a piece is hashed from its
 * element's JSON and its tail instead.
 */
export interface CountedText {
  text: string;
  /** The element's JSON and tail the text is the piece of; absent for a text counted as it is. */
  piece?: { part: string; tail: string };
}

/** The text's key in the recent counts (a hash), or null for a short text counted directly. */
export function cacheKey({ text, piece }: CountedText): string | null {
  if (text.length < CACHED_FROM_CHARS) return null;
  // The tags keep a piece's key apart from a whole text's that happens to read the same.
  const hash = piece
    ? createHash('sha256').update('piece\0').update(piece.part).update(piece.tail)
    : createHash('sha256').update('text\0').update(text);
  return hash.digest('base64');
}

interface KnownCounts {
  counts: (number | undefined)[];
  remember: (index: number, tokens: number) => void;
}

/**
 * Each text's count where it is known without tokenizing (a short text is not looked up:
 * `undefined`, like a text not seen lately), and a function that remembers counts made since.
 */
function knownCounts(texts: readonly CountedText[]): KnownCounts {
  return knownCountsOf(texts.map(cacheKey));
}

/** As {@link knownCounts}, from the texts' keys (cacheKey) computed before. */
export function knownCountsOf(keys: readonly (string | null)[]): KnownCounts {
  return {
    counts: keys.map((key) => (key === null ? undefined : knownTokenCounts.get(key))),
    remember: (index, tokens) => {
      const key = keys[index];
      if (key !== null) knownTokenCounts.set(key, tokens);
    },
  };
}

/** `countTokens` of each text, with the counts of texts seen lately reused. */
function countEachCached(texts: readonly CountedText[]): number[] {
  const { counts, remember } = knownCounts(texts);
  return counts.map((known, index) => {
    if (known !== undefined) return known;
    const tokens = countTokens(texts[index].text);
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
export function countedTexts(parts: readonly string[]): CountedText[] {
  if (!countsPieceByPiece(parts)) return [{ text: `[${parts.join(',')}]` }];
  return [{ text: HEAD }, ...parts.map((part, index) => jsonArrayPiece(part, index === parts.length - 1))];
}

export function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}

/** Each item's JSON, from `serialized` when it was serialized before. */
export function serializeEach(items: readonly object[], serialized: WeakMap<object, string>): string[] {
  return items.map((item) => serializedOf(item, serialized));
}

/** The item's JSON, from `serialized` when it was serialized before (and kept there). */
export function serializedOf(item: object, serialized: WeakMap<object, string>): string {
  let json = serialized.get(item);
  if (json === undefined) {
    json = JSON.stringify(item);
    serialized.set(item, json);
  }
  return json;
}

/** Whether the array's count is the sum of its elements' pieces (every element an object whose first key starts with a letter). */
export function countsPieceByPiece(parts: readonly string[]): boolean {
  return parts.length > 0 && parts.every((part) => ELEMENT_START.test(part));
}

/**
 * The piece of an element's JSON the array's count adds up: from its first key's letter to the
 * next element's `{"` (or the closing `]`). Replacing one element changes only its piece's count.
 */
export function jsonArrayPiece(part: string, isLast: boolean): CountedText {
  const tail = isLast ? ']' : ',{"';
  return { text: `${part.slice(2)}${tail}`, piece: { part, tail } };
}
