import { StoredJson } from '../../common/json/stored-json';
import { renderCompactJson } from './compact-json';
import { boundLine, clipText, ELLIPSIS, isRecord, safeSlice, toSingleLine } from '../../common/text/text-bounds';

/** Bounds of the `tool(args)` part of a block line (R-RC-3: long values are elided). */
export const TOOL_CALL_MAX_CHARS = 120;
export const TOOL_ARG_VALUE_MAX_CHARS = 40;
const TOOL_CALL_MAX_ARGS = 4;
const TOOL_NAME_MAX_CHARS = 48;
const ARG_KEY_MAX_CHARS = 24;

// Keys that read unambiguously without quotes, like Python keyword arguments.
const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `query_kpi_trend(metric="active_members", granularity="week")`: the top-level arguments of
 * an object input in their own order, each value bounded, at most TOOL_CALL_MAX_ARGS of them.
 * Any other input renders as one bounded JSON value; null or undefined as `tool()`.
 */
export function formatToolCall(toolName: string, toolInput: unknown): string {
  const name = boundLine(String(toolName), TOOL_NAME_MAX_CHARS) || 'tool';
  // An input read from the database is its stored text: small (TOOL_INPUT_MAX_BYTES), read here.
  const args = toSingleLine(renderArguments(toolInput instanceof StoredJson ? toolInput.value() : toolInput));
  return `${name}(${clipText(args, TOOL_CALL_MAX_CHARS - name.length - 2)})`;
}

function renderArguments(input: unknown): string {
  if (input === null || input === undefined) return '';
  if (!isRecord(input) || input instanceof Date) return renderValue(input);
  const rendered: string[] = [];
  for (const key in input) {
    if (!Object.hasOwn(input, key)) continue;
    if (rendered.length === TOOL_CALL_MAX_ARGS) {
      rendered.push(ELLIPSIS);
      break;
    }
    rendered.push(`${renderKey(key)}=${renderValue(input[key])}`);
  }
  return rendered.join(', ');
}

function renderKey(key: string): string {
  return BARE_KEY.test(key) ? clipText(key, ARG_KEY_MAX_CHARS) : quoteBounded(key, ARG_KEY_MAX_CHARS);
}

function renderValue(value: unknown): string {
  return typeof value === 'string' ? quoteBounded(value, TOOL_ARG_VALUE_MAX_CHARS) : renderCompactJson(value, TOOL_ARG_VALUE_MAX_CHARS);
}

/** A JSON string literal of at most `maxChars`, elided inside the quotes: `"abc…"`. */
function quoteBounded(value: string, maxChars: number): string {
  if (value.length <= maxChars) {
    const quoted = JSON.stringify(value);
    if (quoted.length <= maxChars) return quoted;
  }
  // Shrink the raw text rather than the quoted one, so no escape sequence is cut in half.
  for (let keep = Math.min(value.length, maxChars - 3); keep > 0; keep -= 1) {
    const candidate = JSON.stringify(safeSlice(value, keep) + ELLIPSIS);
    if (candidate.length <= maxChars) return candidate;
  }
  return JSON.stringify(ELLIPSIS);
}
