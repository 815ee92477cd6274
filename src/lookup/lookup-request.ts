import { MEM_ID_PATTERN } from '../tool-results';
import { MIN_ANSWER_TOKENS } from './answer-window';
import { notFoundText, substringProblem, rangeArgumentProblem } from './keyed-slice';
import { lineArgumentProblem, type LineCalls } from './line-window';
import {
  JSON_PATH_LIBRARY_MAX_CHARS,
  JSON_PATH_MAX_NODES,
  JSON_PATH_TIMEOUT_MS,
  type JsonPathPlan,
  planJsonPath,
} from './json-path/plan-json-path';
import { elide, toSingleLine } from '../common/text/text-bounds';
import { contextLinesProblem, PATTERN_MAX_CHARS, PATTERN_TIMEOUT_MS } from './pattern/pattern-window';
import { SUBSTRING_TIMEOUT_MS } from './substring/substring-search';

/**
 * `recall_tool_result`'s arguments as the client sent them (GraphQL's `recallToolResult` and the
 * MCP tool alike, in one spelling); an argument left out is null or absent.
 */
export interface LookupArguments {
  memId: string;
  format?: 'SUMMARY' | 'FULL' | null;
  query?: string | null;
  offset?: number | null;
  maxChars?: number | null;
  jsonPath?: string | null;
  /** 1-based first line of a line range (R-LG-2); with `lineCount` alone, 1. */
  lineStart?: number | null;
  /** How many lines from `lineStart`; null reads to the last line. */
  lineCount?: number | null;
  /** Lowers the token bound of this one answer (never raises it). */
  maxTokens?: number | null;
  /** RE2 pattern: the numbered lines matching it, from `lineStart` for `lineCount` lines (R-LG-2). */
  pattern?: string | null;
  /** Lines of context before and after each matching line (0 to CONTEXT_LINES_MAX; default 0). */
  contextLines?: number | null;
}

/** Every argument, null where it was left out. */
type GivenArguments = { [K in keyof LookupArguments]-?: Exclude<LookupArguments[K], undefined> };

function withNulls(args: LookupArguments): GivenArguments {
  return {
    memId: args.memId,
    format: args.format ?? null,
    query: args.query ?? null,
    offset: args.offset ?? null,
    maxChars: args.maxChars ?? null,
    jsonPath: args.jsonPath ?? null,
    lineStart: args.lineStart ?? null,
    lineCount: args.lineCount ?? null,
    maxTokens: args.maxTokens ?? null,
    pattern: args.pattern ?? null,
    contextLines: args.contextLines ?? null,
  };
}

/** The bounds of one answer: the smaller of the caller's and the service's. */
interface AnswerBounds {
  maxTokens: number;
  maxChars: number;
}

/**
 * What to fetch and how to answer; `answer` is a bracketed text decided without any SQL. Every
 * mode but `summary` answers a window from `offset` within `bounds` (FULL is the range from 0):
 * of the payload for `range`, of the substring's matches for `substring` (the published `query` argument), of the value for `path`.
 */
export type LookupPlan =
  | { mode: 'summary' }
  | { mode: 'range'; offset: number; bounds: AnswerBounds; nextCall: (offset: number) => string }
  | { mode: 'lines'; lineStart: number; lineCount: number | null; bounds: AnswerBounds; calls: LineCalls }
  | {
      mode: 'pattern';
      pattern: string;
      contextLines: number;
      lineStart: number;
      lineCount: number | null;
      bounds: AnswerBounds;
      calls: LineCalls;
    }
  | { mode: 'substring'; substring: string; offset: number; bounds: AnswerBounds; nextCall: (offset: number) => string }
  | {
      mode: 'path';
      path: Exclude<JsonPathPlan, { kind: 'problem' }>;
      pathText: string;
      offset: number;
      bounds: AnswerBounds;
      nextCall: (offset: number) => string;
    }
  | { mode: 'answer'; text: string };

/** The service's own bounds: every answer's token bound, and the absolute character ceiling. */
export interface LookupLimits {
  maxTokens: number;
  maxChars: number;
}

const QUOTED_MAX_CHARS = 80;
const JSON_PATH_EXAMPLES =
  'write RFC 9535 JSONPath such as $.items[0].price, $.items[*].sku, $..price or $.items[?(@.price < 10)], or a dotted path such as items.0.price';
const PATTERN_EXAMPLES =
  'write RE2 syntax such as ERROR|WARN, ^\\d{4}-\\d\\d-\\d\\d, timeout after \\d+ ms or (?i)connection reset (no backreferences or lookaround)';
const MEM_ID_ECHO_MAX_CHARS = 64;

/**
 * Picks the retrieval mode (R-LG-2). At most one of `query`, `jsonPath` and `pattern` may be given;
 * `pattern` takes `lineStart`/`lineCount` as the lines it searches; `offset`, `maxChars` and
 * `maxTokens` window any answer but the line-based ones, which `maxChars` and `maxTokens` bound
 * (alone, `offset`/`maxChars` read a range of the payload); `format` only matters without a key. A
 * malformed mem id gets the very text an unknown one gets, and arguments that can never be valid
 * are refused here, so neither costs a statement.
 */
export function planLookup(sent: LookupArguments, limits: LookupLimits): LookupPlan {
  const args = withNulls(sent);
  if (args.query !== null && args.jsonPath !== null) {
    return { mode: 'answer', text: '[tool_memory bad arguments: give one of query or json_path, not both]' };
  }
  const pattern = args.pattern ?? null;
  const contextLines = args.contextLines ?? null;
  if (pattern !== null && (args.query !== null || args.jsonPath !== null || args.offset !== null)) {
    return {
      mode: 'answer',
      text: '[tool_memory bad arguments: pattern searches lines (from line_start, for line_count lines); give it without query, json_path or offset]',
    };
  }
  if (pattern === null && contextLines !== null) {
    return {
      mode: 'answer',
      text: '[tool_memory bad arguments: context_lines goes with pattern; give a pattern, or leave context_lines out]',
    };
  }
  const lineStart = args.lineStart ?? null;
  const lineCount = args.lineCount ?? null;
  const lines = pattern === null && (lineStart !== null || lineCount !== null);
  if (lines && (args.query !== null || args.jsonPath !== null || args.offset !== null)) {
    return {
      mode: 'answer',
      text: '[tool_memory bad arguments: line_start/line_count read lines; give them without query, json_path or offset]',
    };
  }
  const offset = args.offset ?? 0;
  const problem = rangeArgumentProblem(offset, args.maxChars ?? 1);
  if (problem !== null) return { mode: 'answer', text: problem };
  const maxTokens = args.maxTokens ?? null;
  if (maxTokens !== null && (!Number.isSafeInteger(maxTokens) || maxTokens < MIN_ANSWER_TOKENS)) {
    return {
      mode: 'answer',
      text: `[tool_memory bad max_tokens: must be an integer of at least ${MIN_ANSWER_TOKENS}, got ${String(maxTokens)}]`,
    };
  }
  const bounds: AnswerBounds = {
    maxTokens: Math.min(maxTokens ?? limits.maxTokens, limits.maxTokens),
    maxChars: Math.min(args.maxChars ?? limits.maxChars, limits.maxChars),
  };
  // The exact call that reads on: the same key and bounds, the next offset (or line).
  const bound = `${args.maxChars !== null ? `, max_chars=${args.maxChars}` : ''}${maxTokens !== null ? `, max_tokens=${maxTokens}` : ''}`;
  const nextCall = (key: string) => (next: number) => `recall_tool_result(mem_id='${args.memId}'${key}, offset=${next}${bound})`;

  if (pattern !== null) {
    const problem =
      (pattern.length > PATTERN_MAX_CHARS ? badPatternText(pattern, `longer than ${PATTERN_MAX_CHARS} characters`) : null) ??
      contextLinesProblem(contextLines ?? 0) ??
      lineArgumentProblem(lineStart ?? 1, lineCount);
    if (problem !== null) return { mode: 'answer', text: problem };
    const key = `, pattern=${JSON.stringify(pattern)}${contextLines !== null ? `, context_lines=${contextLines}` : ''}`;
    const calls: LineCalls = {
      lines: (start, count) =>
        `recall_tool_result(mem_id='${args.memId}'${key}, line_start=${start}${count !== null ? `, line_count=${count}` : ''}${bound})`,
      chars: (from) => `recall_tool_result(mem_id='${args.memId}', offset=${from}${bound})`,
    };
    return known(args.memId, {
      mode: 'pattern',
      pattern,
      contextLines: contextLines ?? 0,
      lineStart: lineStart ?? 1,
      lineCount,
      bounds,
      calls,
    });
  }
  if (lines) {
    const problem = lineArgumentProblem(lineStart ?? 1, lineCount);
    if (problem !== null) return { mode: 'answer', text: problem };
    const calls: LineCalls = {
      lines: (start, count) =>
        `recall_tool_result(mem_id='${args.memId}', line_start=${start}${count !== null ? `, line_count=${count}` : ''}${bound})`,
      chars: (from) => `recall_tool_result(mem_id='${args.memId}', offset=${from}${bound})`,
    };
    return known(args.memId, { mode: 'lines', lineStart: lineStart ?? 1, lineCount, bounds, calls });
  }
  if (args.jsonPath !== null) {
    const path = planJsonPath(args.jsonPath);
    if (path.kind === 'problem') {
      return { mode: 'answer', text: `[tool_memory bad json_path: ${quoted(args.jsonPath)}: ${path.problem}; ${JSON_PATH_EXAMPLES}]` };
    }
    return known(args.memId, {
      mode: 'path',
      path,
      pathText: args.jsonPath,
      offset,
      bounds,
      nextCall: nextCall(`, json_path=${JSON.stringify(args.jsonPath)}`),
    });
  }
  if (args.query !== null) {
    const problem = substringProblem(args.query);
    if (problem !== null) return { mode: 'answer', text: problem };
    return known(args.memId, {
      mode: 'substring',
      substring: args.query,
      offset,
      bounds,
      nextCall: nextCall(`, query=${JSON.stringify(args.query)}`),
    });
  }
  const windowed = args.format === 'FULL' || args.offset !== null || args.maxChars !== null;
  return known(args.memId, windowed ? { mode: 'range', offset, bounds, nextCall: nextCall('') } : { mode: 'summary' });
}

/** The not-found text for a mem id, echoing a malformed one only as a short single line. */
export function memNotFoundText(memId: string): string {
  return notFoundText(elide(toSingleLine(memId), MEM_ID_ECHO_MAX_CHARS));
}

/** A path the payload does not have (or a payload that is not JSON): still a not-found text. */
export function pathNotFoundText(memId: string, pathText: string): string {
  return `[tool_memory not found: json_path ${quoted(pathText)} in ${memId}]`;
}

/** A node list longer than one answer may list. */
export function tooManyNodesText(memId: string, pathText: string): string {
  return `[tool_memory too many nodes: json_path ${quoted(pathText)} selects more than ${JSON_PATH_MAX_NODES} in ${memId}; narrow it, e.g. with a slice such as $.items[0:100] or a filter]`;
}

/** A node-list evaluation stopped at its time bound. */
export function pathTimedOutText(pathText: string): string {
  return `[tool_memory json_path took too long: ${quoted(pathText)} was stopped after ${JSON_PATH_TIMEOUT_MS} ms; use fewer descendant segments (..) or simpler regular expressions]`;
}

/** Every JSONPath thread busy and the queue full (or this team's share of them used): nothing was evaluated. */
/** A large stored payload not read: no thread of the lookup pool for the team in time. */
export function payloadBusyText(memId: string): string {
  return `[tool_memory ${memId} not read: the service is busy reading other large results; retry in a moment]`;
}

/** A large stored payload whose reading outlived its budget (it is linear: only a thread starved of CPU gets here). */
export function payloadTimedOutText(memId: string): string {
  return `[tool_memory ${memId} not read in time: the service is overloaded; retry in a moment]`;
}

export function poolBusyText(): string {
  return '[tool_memory json_path not evaluated: the service is busy with other JSONPath evaluations; retry in a moment]';
}

/** A pattern RE2 refuses (or one refused before compiling), with what to write instead. */
export function badPatternText(pattern: string, problem: string): string {
  return `[tool_memory bad pattern: ${quoted(pattern)}: ${problem}; ${PATTERN_EXAMPLES}]`;
}

/** A pattern search stopped at its time bound. */
export function patternTimedOutText(pattern: string): string {
  return (
    `[tool_memory pattern search took too long: ${quoted(pattern)} was stopped after ${PATTERN_TIMEOUT_MS} ms; ` +
    `search fewer lines with line_start/line_count, or use fewer counted repeats such as {100}]`
  );
}

/** Every worker thread busy and the queue full (or this team's share of them used): nothing was searched. */
export function searchBusyText(key: 'pattern' | 'query'): string {
  return `[tool_memory ${key} not searched: the service is busy with other searches; retry in a moment]`;
}

/** A substring search stopped at its time bound (it is linear: only a thread starved of CPU gets here). */
export function substringTimedOutText(substring: string): string {
  return (
    `[tool_memory query search took too long: ${quoted(substring)} was stopped after ${SUBSTRING_TIMEOUT_MS} ms; ` +
    `retry in a moment, or read the payload in ranges with offset and max_chars]`
  );
}

/** This HTTP request already read as many payload characters as one request may. */
export function payloadBudgetText(readBytes: number, maxBytes: number): string {
  return (
    `[tool_memory not read: this request has read ${readBytes} payload bytes, and one request may read ${maxBytes} ` +
    `(RESPONSE_MAX_PAYLOAD_BYTES); read the rest in another request]`
  );
}

/** This HTTP request already started as many library evaluations as one request may. */
export function overRequestBudgetText(limit: number): string {
  return (
    `[tool_memory json_path not evaluated: one request may start ${limit} JSONPath evaluations that PostgreSQL cannot run ` +
    `(JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST) and this one has; send the rest in another request, or use names, ` +
    `indexes, [*], .. and filters comparing a value with a literal, which PostgreSQL evaluates]`
  );
}

/** This HTTP request already started as many worker-thread tasks as one request may. */
export function searchOverRequestBudgetText(key: 'pattern' | 'query', limit: number): string {
  return (
    `[tool_memory ${key} not searched: one request may start ${limit} searches (pattern, or query of a large payload) ` +
    `and JSONPath evaluations in worker threads (JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST) and this one has; ` +
    `send the rest in another request]`
  );
}

/** A path only the library evaluates, on a payload above the library's size bound. */
export function pathTooLargeText(memId: string, pathText: string, sizeChars: number): string {
  return (
    `[tool_memory json_path not evaluated: ${quoted(pathText)} uses what PostgreSQL cannot evaluate (functions, slices, unions, !, !=), ` +
    `allowed on payloads up to ${JSON_PATH_LIBRARY_MAX_CHARS} chars; ${memId} has ${sizeChars}. Use names, indexes, [*], .. and ` +
    `filters comparing a value with a literal (==, <, <=, >, >=, &&, ||), e.g. $.items[?(@.price < 10)].sku]`
  );
}

function quoted(text: string): string {
  return JSON.stringify(elide(toSingleLine(text), QUOTED_MAX_CHARS));
}

function known(memId: string, plan: LookupPlan): LookupPlan {
  return MEM_ID_PATTERN.test(memId) ? plan : { mode: 'answer', text: memNotFoundText(memId) };
}
