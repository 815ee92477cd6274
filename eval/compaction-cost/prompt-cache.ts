import { countsPieceByPiece, jsonArrayPiece } from '../../src/common/text/json-array-tokens';
import { countTokens } from '../../src/common/text/tokenizer';
import { seededRandom } from '../../test/support/seeded-random';

/**
 * What a provider's prompt cache can reuse from one request to the next (R-LG-3 cost model,
 * docs/compaction-cost.md). A request is the message list as JSON (`JSON.stringify(messages)`),
 * counted with the service's tokenizer exactly as compaction counts it (json-array-tokens: the
 * list's count is the sum of its elements' pieces). The prefix shared with the previous request
 * is counted up to the last point before the first differing character where the tokenizer always
 * cuts (tokenizer.ts, `tokenBoundaryFrom`), so it is the exact count of tokens both requests
 * begin with, short at most by the tokens of the word the difference falls in.
 */

/** What one request costs the cache. */
export interface RequestMeasure {
  inputTokens: number;
  /** Tokens of the prefix the previous request had too: cache reads. The rest are cache writes. */
  sharedTokens: number;
  /** An element the previous request held was changed: the cache is lost from there on. */
  cacheBreak: boolean;
}

const HEAD = '[{"';
const MEM_ID = /mem_[a-z2-7]{16}/g;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Measures a run's requests in order. Mem ids are random per database; each is renamed to a
 * seeded id of the same form, in order of first appearance, so the counts are the same on every
 * run while still counting like real ids.
 */
export class RequestMeter {
  private readonly pieceTokens = new Map<string, number>();
  private readonly memIds = new Map<string, string>();
  private readonly random: () => number;
  private previous: string[] | null = null;

  constructor(seed: number) {
    this.random = seededRandom(seed);
  }

  measure(messages: readonly object[]): RequestMeasure {
    const parts = messages.map((message) => this.canonical(JSON.stringify(message)));
    const previous = this.previous;
    this.previous = parts;
    if (!countsPieceByPiece(parts)) throw new Error('every message must be an object whose first key starts with a letter');
    const pieces = parts.map((part, index) => jsonArrayPiece(part, index === parts.length - 1).text);
    const inputTokens = countTokens(HEAD) + pieces.reduce((sum, piece) => sum + this.tokensOf(piece), 0);
    if (previous === null) return { inputTokens, sharedTokens: 0, cacheBreak: false };
    const before = previous.map((part, index) => jsonArrayPiece(part, index === previous.length - 1).text);
    return {
      inputTokens,
      sharedTokens: sharedPrefixTokens(before, pieces, (piece) => this.tokensOf(piece)),
      cacheBreak: changedBeforeEnd(previous, parts),
    };
  }

  /** Renames every mem id the way it was renamed at its first appearance in this run. */
  canonical(json: string): string {
    return json.replace(MEM_ID, (id) => {
      let renamed = this.memIds.get(id);
      if (renamed === undefined) {
        renamed = `mem_${Array.from({ length: 16 }, () => BASE32[Math.floor(this.random() * 32)]).join('')}`;
        this.memIds.set(id, renamed);
      }
      return renamed;
    });
  }

  private tokensOf(piece: string): number {
    let tokens = this.pieceTokens.get(piece);
    if (tokens === undefined) {
      tokens = countTokens(piece);
      this.pieceTokens.set(piece, tokens);
    }
    return tokens;
  }
}

/**
 * Whether an element of the previous list is missing or different in the next one: appending
 * changes only the previous list's closing bracket, anything else invalidates the cache from the
 * first changed element on.
 */
function changedBeforeEnd(previous: readonly string[], next: readonly string[]): boolean {
  if (next.length < previous.length) return true;
  return previous.some((part, index) => part !== next[index]);
}

/**
 * Tokens of the prefix two lists' JSON share, given each list's pieces (`jsonArrayPiece`): the
 * head, the whole pieces they share, and the shared start of the first piece that differs, cut
 * where the tokenizer always cuts.
 */
function sharedPrefixTokens(before: readonly string[], after: readonly string[], tokensOf: (piece: string) => number): number {
  let tokens = countTokens(HEAD);
  let index = 0;
  while (index < before.length && index < after.length && before[index] === after[index]) tokens += tokensOf(before[index++]);
  if (index === before.length || index === after.length) return tokens;
  return tokens + countTokens(before[index].slice(0, commonCut(before[index], after[index])));
}

/**
 * The last index at or before the first difference of `a` and `b` where the tokenizer cuts both
 * texts alike: right after an ASCII letter, before an ASCII character that is neither a letter nor
 * an apostrophe (tokenizer.ts, `tokenBoundaryFrom`). 0 when there is none.
 */
export function commonCut(a: string, b: string): number {
  let same = 0;
  const limit = Math.min(a.length, b.length);
  while (same < limit && a.charCodeAt(same) === b.charCodeAt(same)) same++;
  for (let cut = same; cut > 0; cut--) {
    if (isLetter(a.charCodeAt(cut - 1)) && cutsBefore(a.charCodeAt(cut)) && cutsBefore(b.charCodeAt(cut))) return cut;
  }
  return 0;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** An ASCII character that is not a letter or an apostrophe; the end of the text cuts too. */
function cutsBefore(code: number): boolean {
  return Number.isNaN(code) || (code < 0x80 && code !== 0x27 && !isLetter(code));
}
