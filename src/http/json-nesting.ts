/**
 * How deep a request body's JSON may nest. Far above any tool output or GraphQL request met in
 * practice (the GraphQL envelope takes five levels), and far below what costs: V8 parses a 10 MB
 * body of `[[[…]]]` (5 million levels) for seconds on the event loop, and the service's own walks
 * of a value (its JSON text, the database's jsonb) would fail on it afterwards.
 */
export const MAX_BODY_NESTING = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The byte offset at which `body` (UTF-8 JSON text, valid or not) opens its `maxNesting + 1`th
 * level of arrays or objects, or null when it never does. One pass over the bytes, no allocation:
 * a bracket inside a string does not count (UTF-8 never uses 0x22 or 0x5c inside a multi-byte
 * character, so reading bytes is exact). Whether the text is JSON at all is left to the parser.
 */
export function nestingOverflowAt(body: Uint8Array, maxNesting: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxNesting) return i;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return null;
}

/** body-parser's `verify`: refuses, before JSON.parse runs, a body nested deeper than MAX_BODY_NESTING (a 400 in the route's protocol). */
export function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer): void {
  const at = nestingOverflowAt(body, MAX_BODY_NESTING);
  if (at === null) return;
  throw Object.assign(
    new Error(
      `The request body nests arrays and objects more than ${MAX_BODY_NESTING} levels deep (at byte ${at}): flatten the value, or send it as a JSON string.`,
    ),
    { status: 400, expose: true, type: 'entity.too.deep' },
  );
}
