/*
 * The hardest shapes found for each path (the figures in docs/operations.md#inventory say why),
 * at the configured limits: a tool output of at most TOOL_OUTPUT_MAX_BYTES (2 MiB) serialized, a
 * body of at most HTTP_BODY_LIMIT (10 MB).
 */

/** TOOL_OUTPUT_MAX_BYTES. */
export const OUTPUT_MAX_BYTES = 2 * 1024 * 1024;
/** HTTP_BODY_LIMIT ('10mb', as body-parser reads it). */
export const BODY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * A text output of white space only, as long as the limit allows (serialized with its quotes):
 * the tokenizer finds no point to cut it at, so a token-bounded window counts long prefixes of it
 * again and again. The slowest text found for FULL and line windows (one line, no boundary).
 */
export function spacesText(serializedBytes = OUTPUT_MAX_BYTES): string {
  return ' '.repeat(serializedBytes - 2);
}

/** `count` line breaks: the most lines an output holds (each `\n` is two bytes serialized). */
export function lineBreaks(serializedBytes = OUTPUT_MAX_BYTES): string {
  return '\n'.repeat(Math.floor((serializedBytes - 2) / 2));
}

/** `[{},{},…]` of about `bytes`: the most JSON values in a text of that size, the slowest to parse and serialize found. */
export function emptyObjects(bytes: number): string {
  const count = Math.floor((bytes - 2) / 3);
  return `[${'{},'.repeat(count - 1)}{}]`;
}

/**
 * `[{"k0":0},{"k1":0},…]` cycling through 50,000 distinct keys: V8 keeps a map for each new key, so
 * per byte the slowest body to parse found within the nesting limit.
 */
export function distinctKeyObjects(bytes: number): string {
  const items: string[] = [];
  let length = 1;
  for (let i = 0; ; i++) {
    const item = `{"k${i % 50_000}":0}`;
    if (length + item.length + 1 > bytes) break;
    items.push(item);
    length += item.length + 1;
  }
  return `[${items.join(',')}]`;
}

/** `[[[…]]]` nested as deep as `bytes` allows: the slowest body to parse found, and the largest heap for its size. */
export function deepArrays(bytes: number): string {
  const depth = Math.floor(bytes / 2);
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** A JSON body of at most `bytes` whose `"PAD"` placeholder is replaced by `padding(room)` (JSON text). */
export function paddedJsonBody(template: object, bytes: number, padding: (room: number) => string): string {
  const text = JSON.stringify(template);
  const room = bytes - Buffer.byteLength(text) + '"PAD"'.length;
  return text.replace('"PAD"', () => padding(room));
}

/** `{ me { userId userId … } }`: one field selected `times` times (the validator compares the selections pairwise). */
export function repeatedFieldsDocument(times: number): string {
  return `{ me { ${'userId '.repeat(times)}} }`;
}

/** A unique word per run, so a cache of counts or texts never answers for a run. */
export function runTag(run: number): string {
  return `run${run.toString(36)}x${Date.now().toString(36)}`;
}
