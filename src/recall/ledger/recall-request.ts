import { MEM_ID_PATTERN } from '../../tool-results/mem-id';
import { notFoundText, parseJsonPath, rangeArgumentProblem } from './keyed-slice';
import { elide, toSingleLine } from '../../common/text/text-bounds';

/** `recall_tool_result`'s arguments as the client sent them; null for an argument left out. */
export interface RecallArguments {
  memId: string;
  format: 'SUMMARY' | 'FULL' | null;
  query: string | null;
  offset: number | null;
  maxChars: number | null;
  jsonPath: string | null;
}

/** What to fetch and how to answer; `answer` is a bracketed text decided without any SQL. */
export type RecallPlan =
  | { mode: 'summary' }
  | { mode: 'full' }
  | { mode: 'query'; query: string }
  | { mode: 'range'; offset: number; maxChars: number }
  | { mode: 'path'; path: string[]; pathText: string }
  | { mode: 'answer'; text: string };

const QUOTED_MAX_CHARS = 80;
const MEM_ID_ECHO_MAX_CHARS = 64;

/**
 * Picks the retrieval mode (R-LG-2). At most one key may be given: `query`, `offset`/`maxChars`
 * (either alone: offset 0, or as many chars as the ceiling allows) or `jsonPath`; `format` only
 * matters without a key. A malformed mem id gets the very text an unknown one gets, and a range
 * that can never be valid is refused here, so neither costs a query.
 */
export function planRecall(args: RecallArguments, ceiling: number): RecallPlan {
  const keys = [args.query !== null, args.offset !== null || args.maxChars !== null, args.jsonPath !== null];
  if (keys.filter(Boolean).length > 1) {
    return { mode: 'answer', text: '[tool_memory bad arguments: give one of query, offset/max_chars or json_path, not several]' };
  }
  if (args.offset !== null || args.maxChars !== null) {
    // The ceiling bounds the range up front: the continue marker then says where to read on.
    const offset = args.offset ?? 0;
    const maxChars = args.maxChars === null ? ceiling : args.maxChars;
    const problem = rangeArgumentProblem(offset, maxChars);
    if (problem !== null) return { mode: 'answer', text: problem };
    return known(args.memId, { mode: 'range', offset, maxChars: Math.min(maxChars, ceiling) });
  }
  if (args.jsonPath !== null) {
    const path = parseJsonPath(args.jsonPath);
    if (path === null) {
      return {
        mode: 'answer',
        text: `[tool_memory bad json_path: ${quoted(args.jsonPath)}; use a dotted path such as items.3.price]`,
      };
    }
    return known(args.memId, { mode: 'path', path, pathText: args.jsonPath });
  }
  if (args.query !== null) return known(args.memId, { mode: 'query', query: args.query });
  return known(args.memId, { mode: args.format === 'FULL' ? 'full' : 'summary' });
}

/** The not-found text for a mem id, echoing a malformed one only as a short single line. */
export function memNotFoundText(memId: string): string {
  return notFoundText(elide(toSingleLine(memId), MEM_ID_ECHO_MAX_CHARS));
}

/** A path the payload does not have (or a payload that is not JSON): still a not-found text. */
export function pathNotFoundText(memId: string, pathText: string): string {
  return `[tool_memory not found: json_path ${quoted(pathText)} in ${memId}]`;
}

export function quoted(text: string): string {
  return JSON.stringify(elide(toSingleLine(text), QUOTED_MAX_CHARS));
}

function known(memId: string, plan: RecallPlan): RecallPlan {
  return MEM_ID_PATTERN.test(memId) ? plan : { mode: 'answer', text: memNotFoundText(memId) };
}
