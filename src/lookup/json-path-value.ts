import type { PathValue } from '../tool-results';
import type { WholeText } from './answer-window';

/**
 * How much of the value's text to fetch for an answer window ending at `windowEnd`. jsonb text
 * spends at most one extra char per two (`1, 2` → `1,2`), so twice that still compacts to at
 * least `windowEnd` chars: a window over a value fetched in part is always complete.
 */
export function pathFetchChars(windowEnd: number): number {
  return 2 * windowEnd;
}

/**
 * The answer text of a found value: a string leaf as the plain string, anything else as compact
 * JSON. The JSON is PostgreSQL's text with the separator spaces dropped, not a JS round trip, so
 * numbers keep every digit (a 20-digit id stays exact). Object keys come in jsonb's order. A
 * value fetched in part gives the start of its text, and says so.
 */
export function pathValueText(value: PathValue): { text: string; whole: WholeText } {
  const complete = value.complete;
  const text = value.kind === 'string' ? value.body : compactJsonbText(value.body);
  return { text, whole: complete ? { complete: true } : { complete: false, approximateChars: value.bodyLength } };
}

/**
 * Drops the whitespace jsonb's text puts between tokens (`{"a": 1, "b": [2, 3]}` →
 * `{"a":1,"b":[2,3]}`); string contents, escapes included, stay as they are. Works on a prefix
 * too, which is what a cut value is.
 */
export function compactJsonbText(text: string): string {
  let out = '';
  let runStart = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === ' ' || char === '\n' || char === '\t' || char === '\r') {
      out += text.slice(runStart, index);
      runStart = index + 1;
    }
  }
  return out + text.slice(runStart);
}
