// Larger texts are treated as text rather than parsed on every render.
const MAX_PARSED_TEXT_CHARS = 1_000_000;

/**
 * The JSON object or array a text holds, or undefined when it holds none. Tool payloads often
 * arrive as JSON text (compaction stores what the model saw), yet summaries and schema hints
 * should read them as the JSON they are.
 */
export function parseJsonContainerText(text: string): object | undefined {
  if (text.length > MAX_PARSED_TEXT_CHARS) return undefined;
  const start = text.trimStart().charAt(0);
  if (start !== '{' && start !== '[') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    // Not JSON after all (or nested past the parser's limits): it is text.
    return undefined;
  }
}

/** A string output read as the JSON it holds, when it holds an object or array; else as given. */
export function readJsonText(output: unknown): unknown {
  return typeof output === 'string' ? (parseJsonContainerText(output) ?? output) : output;
}

/**
 * Whether `JSON.stringify(value)` is longer than `limit` characters, without building it: the
 * walk stops as soon as the count passes the limit, so a large tool payload answers after its
 * first few thousand characters. For values as JSON.parse gives them (no undefined, no toJSON).
 */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') length += JSON.stringify(item).length;
    else if (Array.isArray(item)) {
      // Brackets and the commas between items.
      length += 2 + Math.max(0, item.length - 1);
      for (let index = item.length - 1; index >= 0; index--) stack.push(item[index]);
    } else if (typeof item === 'object' && item !== null) {
      const keys = Object.keys(item);
      length += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        // The key, quoted, and its colon.
        length += JSON.stringify(key).length + 1;
        stack.push((item as Record<string, unknown>)[key]);
      }
    } else length += String(JSON.stringify(item)).length;
    if (length > limit) return true;
  }
  return false;
}

/** The text the model saw of a payload: a string output as is, any other JSON serialized. */
export function payloadText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/**
 * payloadText of a payload given as its JSON text (a stored one, in PostgreSQL's rendering): the
 * same characters as payloadText of the value the driver would have parsed from it.
 */
export function payloadTextOfJson(json: string): string {
  return payloadText(JSON.parse(json) as unknown);
}
