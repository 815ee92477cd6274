import { clipText, ELLIPSIS, isRecord } from '../../common/text/text-bounds';

// Deeper values add nothing a one-line summary can show.
const MAX_DEPTH = 16;

/**
 * Compact JSON of any value, cut to `maxChars` with an ellipsis. The walk stops as soon as
 * the bound is passed, so a huge array costs no more than a small one. Never throws:
 * non-JSON values (undefined, NaN, functions) render as null, bigints as digits, cycles as "…".
 */
export function renderCompactJson(value: unknown, maxChars: number): string {
  const parts: string[] = [];
  let length = 0;
  const ancestors = new Set<object>();

  const emit = (piece: string): boolean => {
    parts.push(piece);
    length += piece.length;
    return length <= maxChars;
  };

  const walk = (node: unknown, depth: number): boolean => {
    switch (typeof node) {
      case 'string':
        // Past maxChars + 1 units the string is cut anyway; do not escape megabytes.
        return emit(JSON.stringify(node.length > maxChars ? node.slice(0, maxChars + 1) : node));
      case 'number':
        return emit(Number.isFinite(node) ? String(node) : 'null');
      case 'boolean':
      case 'bigint':
        return emit(String(node));
      case 'object':
        break;
      default:
        return emit('null');
    }
    if (node === null) return emit('null');
    if (node instanceof Date) {
      return emit(Number.isNaN(node.getTime()) ? 'null' : JSON.stringify(node.toISOString()));
    }
    if (depth >= MAX_DEPTH || ancestors.has(node)) return emit(ELLIPSIS);
    ancestors.add(node);
    const complete = Array.isArray(node) ? walkArray(node, depth) : walkObject(node, depth);
    ancestors.delete(node);
    return complete;
  };

  const walkArray = (items: readonly unknown[], depth: number): boolean => {
    if (!emit('[')) return false;
    for (let i = 0; i < items.length; i += 1) {
      if (i > 0 && !emit(',')) return false;
      if (!walk(items[i], depth + 1)) return false;
    }
    return emit(']');
  };

  const walkObject = (node: object, depth: number): boolean => {
    if (!emit('{') || !isRecord(node)) return false;
    let first = true;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      if (!first && !emit(',')) return false;
      first = false;
      if (!emit(`${JSON.stringify(key)}:`) || !walk(node[key], depth + 1)) return false;
    }
    return emit('}');
  };

  walk(value, 0);
  return clipText(parts.join(''), maxChars);
}
