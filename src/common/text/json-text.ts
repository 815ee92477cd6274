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
