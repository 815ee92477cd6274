import { parseJsonContainerText } from '../../common/text/json-text';
import { ELLIPSIS, elide, toSingleLine } from '../../common/text/text-bounds';

export const SCHEMA_HINT_MAX_CHARS = 160;
const KEY_MAX_CHARS = 24;

interface HintLimits {
  maxDepth: number;
  maxKeys: number;
}

// From richest to plainest; the first rendering that fits the bound wins (deterministic).
const LIMIT_LADDER: readonly HintLimits[] = [
  { maxDepth: 3, maxKeys: 8 },
  { maxDepth: 2, maxKeys: 8 },
  { maxDepth: 2, maxKeys: 5 },
  { maxDepth: 1, maxKeys: 5 },
  { maxDepth: 1, maxKeys: 3 },
  { maxDepth: 0, maxKeys: 3 },
  { maxDepth: 0, maxKeys: 1 },
];

/**
 * A bounded description of a JSON value's shape, e.g. `{items: [{sku, price, title, …}×312],
 * total}`, so the model can aim a `json_path` without seeing the payload. Arrays are described
 * by their first element. A string is parsed when it holds a JSON object or array (payloads
 * often arrive as JSON text); any other text gives null.
 */
export function schemaHint(value: unknown): string | null {
  const json = typeof value === 'string' ? parseJsonContainerText(value) : value;
  if (json === undefined) return null;
  for (const limits of LIMIT_LADDER) {
    const hint = describe(json, 0, limits);
    if (hint.length <= SCHEMA_HINT_MAX_CHARS) return hint;
  }
  return elide(describe(json, 0, LIMIT_LADDER[LIMIT_LADDER.length - 1]), SCHEMA_HINT_MAX_CHARS);
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function describe(value: unknown, depth: number, limits: HintLimits): string {
  if (Array.isArray(value)) return describeArray(value, depth, limits);
  if (isContainer(value)) return describeObject(value as Record<string, unknown>, depth, limits);
  return value === null ? 'null' : typeof value;
}

function describeArray(items: readonly unknown[], depth: number, limits: HintLimits): string {
  if (items.length === 0) return '[]';
  const first = items[0];
  // Only objects and nested arrays count as a level, so `[{sku, price}×N]` reads as one level.
  if (!Array.isArray(first)) return `[${describe(first, depth, limits)}×${items.length}]`;
  const element = depth < limits.maxDepth ? describe(first, depth + 1, limits) : ELLIPSIS;
  return `[${element}×${items.length}]`;
}

function describeObject(record: Record<string, unknown>, depth: number, limits: HintLimits): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return '{}';
  const parts = keys.slice(0, limits.maxKeys).map((key) => {
    const child = record[key];
    const label = keyLabel(key);
    // At the depth limit keys are still named, but their contents are not opened.
    const opened = isContainer(child) && depth < limits.maxDepth && !isEmptyContainer(child);
    return opened ? `${label}: ${describe(child, depth + 1, limits)}` : label;
  });
  if (keys.length > limits.maxKeys) parts.push(ELLIPSIS);
  return `{${parts.join(', ')}}`;
}

function isEmptyContainer(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** Plain keys as is; anything that could be misread (spaces, commas, quotes) as a JSON string. */
function keyLabel(key: string): string {
  const bounded = elide(toSingleLine(key), KEY_MAX_CHARS);
  return /^[\w$-]+$/.test(bounded) ? bounded : JSON.stringify(bounded);
}
