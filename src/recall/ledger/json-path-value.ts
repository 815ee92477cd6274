import type { PathValue } from '../../tool-results/tool-results.service';
import { cutAnswer } from './keyed-slice';

/**
 * How much of the value's text to fetch for a given answer ceiling. jsonb text spends at most
 * one extra char per two (`1, 2` → `1,2`), so twice the ceiling still compacts to more than the
 * ceiling: a cut value always shows its full ceiling's worth.
 */
export function pathFetchChars(ceiling: number): number {
  return 2 * ceiling;
}

/**
 * The answer for a found value: a string leaf as the plain string, anything else as compact
 * JSON. The JSON is PostgreSQL's text with the separator spaces dropped, not a JS round trip, so
 * numbers keep every digit (a 20-digit id stays exact). Object keys come in jsonb's order.
 */
export function renderPathValue(value: PathValue, pathText: string, ceiling: number): string {
  const text = value.kind === 'string' ? value.body : compactJsonbText(value.body);
  const hint =
    value.kind === 'string'
      ? `the string is ${value.bodyLength} chars; find the part you need with query=<substring>`
      : `narrow the json_path, e.g. ${JSON.stringify(`${pathText}.${value.kind === 'array' ? '0' : '<key>'}`)}`;
  const complete = value.body.length >= value.bodyLength;
  if (complete || text.length > ceiling) return cutAnswer(text, ceiling, hint);
  // Unreachable with pathFetchChars, kept so a cut value can never pass as a whole one.
  return `${text}\n[… cut at the ${ceiling}-char limit; ${hint}]`;
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
