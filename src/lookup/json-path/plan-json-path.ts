import type { JSONPathQuery } from 'json-p3';
import { isStorableText } from '../../common/text/storable-text';
import type { JsonSelection } from '../../tool-results';
import { parseDottedPath } from './dotted-path';
import { parseRfc9535Query } from './rfc9535-query';
import { toSqlJsonPath } from './sql-json-path';

/** Most nodes one answer lists; a query that selects more is asked to narrow. */
export const JSON_PATH_MAX_NODES = 10_000;
/** Most milliseconds a node-list query may run, in PostgreSQL or in the library. */
export const JSON_PATH_TIMEOUT_MS = 1_000;
/** The largest payload (characters) the library evaluates; what PostgreSQL evaluates has no such cap. */
export const JSON_PATH_LIBRARY_MAX_CHARS = 2_000_000;
/** The longest json_path read at all: parsing is paid on every call. */
const JSON_PATH_MAX_CHARS = 4_096;
/** The deepest nesting of brackets and parentheses read: the parser recurses per level. */
const JSON_PATH_MAX_NESTING = 64;

/**
 * Why a json_path is refused before any parsing, or null: too long, or brackets and parentheses
 * (counted outside string literals) nested too deep for the library's recursive parser.
 */
function jsonPathShapeProblem(text: string): string | null {
  if (text.length > JSON_PATH_MAX_CHARS) return `longer than ${JSON_PATH_MAX_CHARS} characters`;
  let depth = 0;
  let quote: string | null = null;
  for (let index = 0; index < text.length; index++) {
    const ch = text[index];
    if (quote !== null) {
      if (ch === '\\') index++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[' || ch === '(') {
      depth++;
      if (depth > JSON_PATH_MAX_NESTING) return `brackets or parentheses nested deeper than ${JSON_PATH_MAX_NESTING}`;
    } else if (ch === ']' || ch === ')') depth = Math.max(0, depth - 1);
  }
  return null;
}

/**
 * How a json_path is answered. `list`: the answer is the node list as a JSON array (`[]` when
 * nothing matches); otherwise the one value itself, as the dotted form answers.
 */
export type JsonPathPlan =
  /** Evaluated in PostgreSQL: the dotted form (`#>`), or RFC 9535 translated to a SQL/JSON path. */
  | { kind: 'database'; selection: JsonSelection; list: boolean }
  /** RFC 9535 PostgreSQL cannot express exactly, evaluated by the library on the fetched payload. */
  | { kind: 'library'; query: JSONPathQuery; list: boolean }
  | { kind: 'problem'; problem: string };

/**
 * Reads a json_path: RFC 9535 JSONPath when it starts with `$`, else the dotted form
 * (`items.3.price`). A singular RFC 9535 query (names and indexes only) answers with its value,
 * like the dotted form; any other with its node list.
 */
export function planJsonPath(text: string): JsonPathPlan {
  const shape = jsonPathShapeProblem(text);
  if (shape !== null) return { kind: 'problem', problem: shape };
  // Leading white space before `$` is RFC 9535 still (and refused by it), not a dotted key.
  if (!text.trimStart().startsWith('$')) {
    const keys = parseDottedPath(text);
    return keys === null
      ? { kind: 'problem', problem: 'not a dotted path (keys and array indexes joined by dots)' }
      : { kind: 'database', selection: { kind: 'keys', keys }, list: false };
  }
  if (!isStorableText(text)) return { kind: 'problem', problem: 'it holds a NUL character or an unpaired surrogate' };
  const parsed = parseRfc9535Query(text);
  if ('problem' in parsed) return { kind: 'problem', problem: parsed.problem };
  const list = !parsed.singular;
  const sqlPath = toSqlJsonPath(parsed.query);
  // PostgreSQL text holds no NUL, so a name with one goes to the library.
  if (sqlPath === null || sqlPath.includes('\\u0000')) return { kind: 'library', query: parsed.query, list };
  const selection: JsonSelection = list
    ? { kind: 'nodes', sqlPath, maxNodes: JSON_PATH_MAX_NODES, timeoutMs: JSON_PATH_TIMEOUT_MS }
    : { kind: 'value', sqlPath };
  return { kind: 'database', selection, list };
}
