import { toolOutput } from '../soak-load';
import { pickIndex, seededRandom } from '../seeded';
import { MAX_RULE_DOCUMENT_CHARS } from '../../src/tool-results/summarizer/summary-rule-document';

/*
 * The hostile tenant's documents (issue 53's findings), each as serialized JSON text: built once
 * per run, sent many times. Sizes stay inside the configured limits: a tool output ≤ 2 MiB
 * serialized, a body ≤ 10 MiB.
 */

/** Just under TOOL_OUTPUT_MAX_BYTES (2 MiB), as a hostile tenant would aim. */
export const OUTPUT_BYTES = 2_050_000;
/** Just under HTTP_BODY_LIMIT (10 MiB). */
export const BODY_BYTES = 9_800_000;

/** Finding 1: a 2,000,000-character text, and a 1,000-character query that fails at its 51st character everywhere in it. */
export const SUBSTRING_TEXT = JSON.stringify('a'.repeat(2_000_000));
export const SUBSTRING_QUERY = `${'a'.repeat(50)}b${'a'.repeat(949)}`;

/** Finding 5: a string of 340,000 × U+0001, 2,040,002 bytes serialized (each one `\u0001`). */
export const CONTROL_CHARS_TEXT = JSON.stringify('\u0001'.repeat(340_000));

/** Rows `{"i":…,"at":"<ISO time>"}` until about `bytes`: ~46,000 rows in 2 MB, each a date every maxDate part parses. */
export function datedRows(bytes: number): string {
  const rows: string[] = [];
  let size = '{"rows":[]}'.length;
  for (let i = 0; size < bytes - 60; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 61_000).toISOString().slice(0, 19);
    const row = `{"i":${i},"at":"${at}+02:00"}`;
    rows.push(row);
    size += row.length + 1;
  }
  return `{"rows":[${rows.join(',')}]}`;
}

/**
 * Finding 4, the PostgreSQL-side `$..*`: rows of three long strings, as many as keep the node
 * list under JSON_PATH_MAX_NODES (10,000), so every evaluation walks and serializes the whole
 * document instead of stopping at the cap.
 */
export function wideRows(bytes: number, maxNodes = 10_000): string {
  const count = Math.floor((maxNodes - 2) / 4);
  const field = Math.floor(bytes / count / 3) - 12;
  const text = (i: number, name: string) => `${name}${i} `.repeat(Math.ceil(field / 8)).slice(0, field);
  const rows = Array.from({ length: count }, (_, i) => ({ a: text(i, 'alpha'), b: text(i, 'beta'), c: text(i, 'gamma') }));
  return JSON.stringify({ rows });
}

const WORDS = ['invoice', 'shipment', 'widget', 'gasket', 'turbine', 'harbor', 'orchid', 'falcon', 'copper', 'meadow', 'signal', 'lantern'];

/** Finding 4, the pattern flood: about `chars` of text in lines of words, serialized. */
export function lineText(chars: number): string {
  const random = seededRandom(20261209);
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    const line = Array.from({ length: 8 }, () => WORDS[pickIndex(random, WORDS.length)]).join(' ');
    lines.push(line);
    size += line.length + 1;
  }
  return JSON.stringify(lines.join('\n'));
}

/** Finding 4, the writes: a word-rich JSON output (token counting's real work) of at most `bytes`. */
export function wordyOutput(seed: number, bytes: number): string {
  const perItem = Buffer.byteLength(JSON.stringify(toolOutput(seededRandom(seed), 100))) / 100;
  let items = Math.floor(bytes / perItem);
  let json = JSON.stringify(toolOutput(seededRandom(seed), items));
  while (Buffer.byteLength(json) > bytes) {
    items = Math.floor(items * 0.99);
    json = JSON.stringify(toolOutput(seededRandom(seed), items));
  }
  return json;
}

/**
 * Finding 2: eight rules of seven `maxDate` parts over `rows` and, last, one `count` part that
 * fails (its path holds no array), so no rule ever completes and every part is read.
 */
export function rulesBombDocument(): unknown {
  const rules = Array.from({ length: 8 }, (_, r) => ({
    parts: [
      ...Array.from({ length: 7 }, (_, p) => ({ kind: 'maxDate', path: 'rows', field: 'at', label: `d${r}${p}` })),
      { kind: 'count', path: 'none', label: 'n' },
    ],
  }));
  const document = { version: 1, rules };
  const length = JSON.stringify(document).length;
  if (length > MAX_RULE_DOCUMENT_CHARS)
    throw new Error(`the rules bomb is ${length} characters, over the ${MAX_RULE_DOCUMENT_CHARS} limit`);
  return document;
}

/** Finding 3: a JSON body of `bytes` whose padding sits inside `template`'s `"PAD"`. */
export function paddedBody(template: object, bytes: number): Buffer {
  const text = JSON.stringify(template);
  const padding = 'x'.repeat(bytes - Buffer.byteLength(text) + '"PAD"'.length - 2);
  return Buffer.from(text.replace('"PAD"', () => `"${padding}"`));
}
