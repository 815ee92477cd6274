import { SUBSTRING_QUERY, SUBSTRING_TEXT, wideRows } from '../../neighbours/attack-payloads';
import { recordSerialized } from '../../neighbours/calls';
import { contains, graphqlBody, type InventoryContext, measureRequests, type Probe, sendExpecting } from '../measure';
import { emptyObjects, lineBreaks, OUTPUT_MAX_BYTES, runTag, spacesText } from '../shapes';

/** recallToolResult's modes, each on the hardest payload found for it (JSON text of at most 2 MiB). */

/** Snapshots a probe reads in turn: more than the served-text cache holds (8,000,000 chars), so every read misses it. */
const ROTATION = 8;
/** GRAPHQL_MAX_ALIASES. */
const MAX_ALIASES = 15;
/** JSON_PATH_LIBRARY_MAX_CHARS: the largest document the library evaluates. */
const LIBRARY_MAX_CHARS = 2_000_000;
/** SUBSTRING_OFF_THREAD_FROM_CHARS - 1: the longest payload searched on the event loop. */
const IN_PLACE_QUERY_CHARS = 32_767;
const CONVERSATION = 1;

/** Writes `outputs` (JSON texts) as the member, four to a request (each body under 10 MB); their mem ids. */
export async function writeOutputs(ctx: InventoryContext, toolName: string, outputs: readonly string[]): Promise<string[]> {
  const memIds: string[] = [];
  for (let i = 0; i < outputs.length; i += 4) {
    memIds.push(
      ...(await recordSerialized(ctx.client, ctx.member, toolName, outputs.slice(i, i + 4), ctx.member.conversations[CONVERSATION])),
    );
  }
  return memIds;
}

/** `count` copies of one output, as JSON text. */
const copies = (output: string, count: number) => Array.from({ length: count }, () => output);

interface RecallProbe extends Omit<Probe, 'measure'> {
  /** The snapshots' output, as JSON text. */
  output: () => string;
  /** recallToolResult's arguments besides memId; `$p` is `p`, a String. */
  args: string;
  p?: string;
  /** Fragments of which the answer must hold one: the row measures this answer, not another. */
  expect: string[];
}

/** One recallToolResult per run, on the next of ROTATION snapshots of the output. */
function recallProbe({ output, args, p, expect, ...described }: RecallProbe): Probe {
  const query = `query($m: String!${p === undefined ? '' : ', $p: String!'}) { recallToolResult(memId: $m, ${args}) }`;
  return {
    ...described,
    measure: async (ctx) => {
      const memIds = await writeOutputs(ctx, `inventory_${described.id}`, copies(output(), ROTATION));
      return measureRequests(ctx, ctx.runs, (run) => {
        const body = graphqlBody(query, { m: memIds[run % ROTATION], p });
        return async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, contains(...expect)));
      });
    },
  };
}

/** A query of `aliases` recallToolResult calls, alias i on `$m<i % memIds>`, each with `args`; and its variables. */
function aliasedRecall(memIds: readonly string[], aliases: number, args: string, p?: string): string {
  const variables = [...memIds.map((_, i) => `$m${i}: String!`), ...(p === undefined ? [] : ['$p: String!'])].join(', ');
  const calls = Array.from({ length: aliases }, (_, i) => `a${i}: recallToolResult(memId: $m${i % memIds.length}, ${args})`);
  return graphqlBody(`query(${variables}) { ${calls.join(' ')} }`, { ...Object.fromEntries(memIds.map((m, i) => [`m${i}`, m])), p });
}

const stringDocument = (key: string, chars: number) => JSON.stringify({ [key]: ' '.repeat(chars) });
const spaces = () => JSON.stringify(spacesText());

export const recallProbes: Probe[] = [
  recallProbe({
    id: 'R1',
    path: 'recallToolResult FULL: reading the payload (its stored text read as the served text on a lookup thread)',
    grows: 'payload size',
    bound: 'TOOL_OUTPUT_MAX_BYTES = 2 MiB; the answer ≤ LOOKUP_ANSWER_MAX_TOKENS = 8,000',
    runsOn: 'lookup pool (a document of 32,768 chars or more); event loop: the window; PostgreSQL',
    worstCase: 'a 2 MiB output of `[{},{},…]` (700,000 objects)',
    output: () => emptyObjects(OUTPUT_MAX_BYTES),
    args: 'format: FULL',
    expect: ['more: continue with'],
  }),
  recallProbe({
    id: 'R2',
    path: 'recallToolResult FULL/range: the token-bounded window and its pieces',
    grows: 'window length in characters (tokens per character)',
    bound: 'LOOKUP_ANSWER_MAX_TOKENS = 8,000, LOOKUP_MAX_RETURN_CHARS = 500,000',
    runsOn: 'event loop',
    worstCase: 'a 2 MiB text of spaces (no point to cut it at)',
    output: spaces,
    args: 'format: FULL',
    expect: ['more: continue with'],
  }),
  recallProbe({
    id: 'R3',
    path: 'recallToolResult lines: a window of one long line',
    grows: 'line length',
    bound: 'LOOKUP_ANSWER_MAX_TOKENS = 8,000, LOOKUP_MAX_RETURN_CHARS = 500,000',
    runsOn: 'event loop',
    worstCase: 'line_start=1 of a 2 MiB one-line text of spaces',
    output: spaces,
    args: 'lineStart: 1',
    expect: ['for the rest of line 1'],
  }),
  recallProbe({
    id: 'R4',
    path: 'recallToolResult lines: counting and finding lines over the whole payload',
    grows: 'line count',
    bound: 'TOOL_OUTPUT_MAX_BYTES = 2 MiB (1,048,575 lines)',
    runsOn: 'event loop',
    worstCase: 'the last line of a text of 1,048,575 line breaks',
    output: () => JSON.stringify(lineBreaks()),
    args: 'lineStart: 1048575',
    expect: ['1048575'],
  }),
  recallProbe({
    id: 'R5',
    path: 'recallToolResult pattern: line count on the event loop, search in the pool, matches windowed',
    grows: 'line count, matching lines',
    bound: 'JSON_PATH_WORKERS pool (1,000 ms a search), pattern ≤ 1,000 chars, the answer ≤ 8,000 tokens',
    runsOn: 'JSONPath pool; event loop: line count, the match list back, the window',
    worstCase: 'pattern `^` (every line matches) over 1,048,575 empty lines',
    output: () => JSON.stringify(lineBreaks()),
    args: 'pattern: $p',
    p: '^',
    expect: ['matching lines'],
  }),
  recallProbe({
    id: 'R6',
    path: 'recallToolResult pattern: the slowest pattern',
    grows: 'payload size × pattern program size',
    bound: 'PATTERN_TIMEOUT_MS = 1,000 (+500 ms, then the thread is terminated)',
    runsOn: 'JSONPath pool',
    worstCase: '`\\pL{1000}` × 111 (999 chars) over 2 MiB of text lines (answered, or stopped at its budget)',
    output: () => JSON.stringify(`${'lantern harbor falcon copper meadow signal orchid\n'.repeat(41_000)}`),
    args: 'pattern: $p',
    p: '\\pL{1000}'.repeat(111),
    expect: ['pattern search took too long', 'matching lines'],
  }),
  recallProbe({
    id: 'R7',
    path: 'recallToolResult query: a payload searched in place',
    grows: 'payload size × matches',
    bound: 'payload < SUBSTRING_OFF_THREAD_FROM_CHARS = 32,768 chars; query ≤ 1,000 chars; 10,000 matches counted',
    runsOn: 'event loop',
    worstCase: "32,767 × `a`, the query `'a'×50 + 'b' + 'a'×949`",
    output: () => JSON.stringify('a'.repeat(IN_PLACE_QUERY_CHARS)),
    args: 'query: $p',
    p: SUBSTRING_QUERY,
    expect: ['no match'],
  }),
  recallProbe({
    id: 'R8',
    path: 'recallToolResult query: a payload searched in the pool',
    grows: 'payload size',
    bound: 'payload ≥ 32,768 chars: JSONPath pool, SUBSTRING_TIMEOUT_MS = 1,000, 10,000 matches counted',
    runsOn: 'JSONPath pool (event loop: handing the text over)',
    worstCase: "2,000,000 × `a`, the query `'a'×50 + 'b' + 'a'×949`",
    output: () => SUBSTRING_TEXT,
    args: 'query: $p',
    p: SUBSTRING_QUERY,
    expect: ['no match'],
  }),
  recallProbe({
    id: 'R9',
    path: 'recallToolResult JSONPath in the library (json-p3), the node list windowed',
    grows: 'document size, node list length',
    bound: 'JSON_PATH_LIBRARY_MAX_CHARS = 2,000,000; JSON_PATH_MAX_NODES = 10,000; 1,000 ms an evaluation',
    runsOn: 'JSONPath pool (parse, evaluation); event loop: the window',
    worstCase: '`$[?length(@) > 1]` over `["<2,000,000 spaces>"]` (a node list of one long string)',
    output: () => JSON.stringify([' '.repeat(LIBRARY_MAX_CHARS - 6)]),
    args: 'jsonPath: $p',
    p: '$[?length(@) > 1]',
    expect: ['more: continue with'],
  }),
  recallProbe({
    id: 'R10',
    path: 'recallToolResult JSONPath node list in PostgreSQL',
    grows: 'document size, nodes',
    bound: 'JSON_PATH_MAX_NODES = 10,000; 1,000 ms statement timeout; JSON_PATH_DATABASE_CONCURRENCY = 2',
    runsOn: 'PostgreSQL (event loop: the window)',
    worstCase: '`$..*` over 2 MiB of 2,499 rows of three long strings (9,997 nodes)',
    output: () => wideRows(OUTPUT_MAX_BYTES - 1_024),
    args: 'jsonPath: $p',
    p: '$..*',
    expect: ['more: continue with'],
  }),
  recallProbe({
    id: 'R11',
    path: 'recallToolResult JSONPath single value, windowed',
    grows: 'value length',
    bound: 'the value fetched ≤ offset + LOOKUP_MAX_RETURN_CHARS; the answer ≤ 8,000 tokens',
    runsOn: 'PostgreSQL, event loop (the window)',
    worstCase: '`$.a` of `{"a": "<2 MiB of spaces>"}`',
    output: () => stringDocument('a', OUTPUT_MAX_BYTES - 16),
    args: 'jsonPath: $p',
    p: '$.a',
    expect: ['more: continue with'],
  }),
  {
    id: 'R12',
    path: 'recallToolResult × aliases: FULL windows in one request',
    grows: 'aliases × payload size',
    bound: 'GRAPHQL_MAX_ALIASES = 15; RESPONSE_MAX_PAYLOAD_BYTES = 16 MiB of payloads read',
    runsOn: 'event loop, PostgreSQL',
    worstCase: '15 aliases of FULL over 8 different 2 MiB texts of spaces (the budget stops the reads after 9)',
    maxRuns: 3,
    measure: async (ctx) => {
      const body = aliasedRecall(await writeOutputs(ctx, 'inventory_R12', copies(spaces(), ROTATION)), MAX_ALIASES, 'format: FULL');
      return measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, contains('RESPONSE_MAX_PAYLOAD_BYTES'));
      });
    },
  },
  {
    id: 'R13',
    path: 'recallToolResult × aliases: queries searched in place',
    grows: 'aliases × payload size',
    bound: 'GRAPHQL_MAX_ALIASES = 15; payloads < 32,768 chars (not counted by JSON_PATH_LIBRARY_EVALUATIONS_PER_REQUEST)',
    runsOn: 'event loop',
    worstCase: "15 aliases, each on its own 32,767 × `a` payload, the query `'a'×50 + 'b' + 'a'×949`",
    measure: async (ctx) => {
      return measureRequests(ctx, ctx.runs, async (run) => {
        // Fresh payloads each run (a cached text would spare the read); a tag keeps them apart.
        const output = JSON.stringify(`${runTag(run)} ${'a'.repeat(IN_PLACE_QUERY_CHARS - runTag(run).length - 1)}`);
        const memIds = await writeOutputs(ctx, 'inventory_R13', copies(output, MAX_ALIASES));
        const body = aliasedRecall(memIds, MAX_ALIASES, 'query: $p', SUBSTRING_QUERY);
        return async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, contains('no match')));
      });
    },
  },
];
