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
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * One pass over a body's bytes (UTF-8 JSON text, valid or not), in as many pieces as the caller
 * likes: how deep it nests, and how much structure it has. No allocation; a bracket inside a
 * string does not count (UTF-8 never uses 0x22 or 0x5c inside a multi-byte character, so reading
 * bytes is exact). Whether the text is JSON at all is left to the parser.
 */
export class JsonStructureScan {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Brackets, commas and colons outside strings so far: what JSON.parse's cost grows with, beside bytes. */
  structure = 0;

  constructor(private readonly maxNesting: number) {}

  /** Reads `body[from, to)`: the offset of the bracket that opens level `maxNesting + 1`, or null. */
  scan(body: Uint8Array, from: number, to: number): number | null {
    let { depth, inString, escaped, structure } = this;
    let overflow: number | null = null;
    for (let i = from; i < to; i++) {
      const byte = body[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        structure++;
        if (++depth > this.maxNesting) {
          overflow = i;
          break;
        }
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        structure++;
        depth--;
      } else if (byte === COMMA || byte === COLON) {
        structure++;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.structure = structure;
    return overflow;
  }
}

/** The byte offset at which `body` opens its `maxNesting + 1`th level of arrays or objects, or null when it never does. */
export function nestingOverflowAt(body: Uint8Array, maxNesting: number): number | null {
  return new JsonStructureScan(maxNesting).scan(body, 0, body.length);
}

/** The 400 for a body nested deeper than MAX_BODY_NESTING, `at` the byte where. */
export function tooDeepError(at: number): Error {
  return Object.assign(
    new Error(
      `The request body nests arrays and objects more than ${MAX_BODY_NESTING} levels deep (at byte ${at}): flatten the value, or send it as a JSON string.`,
    ),
    { status: 400, expose: true, type: 'entity.too.deep' },
  );
}

/** body-parser's `verify`: refuses, before JSON.parse runs, a body nested deeper than MAX_BODY_NESTING (a 400 in the route's protocol). */
export function refuseDeepNesting(_req: unknown, _res: unknown, body: Buffer): void {
  const at = nestingOverflowAt(body, MAX_BODY_NESTING);
  if (at !== null) throw tooDeepError(at);
}
