import { planJsonPath } from '../../src/lookup/json-path/plan-json-path';
import { emptyObjects } from '../inventory/shapes';
import { aliasedQuery, graphqlCall, recordSerialized, recordSerializedInputs } from './calls';
import { CONTROL_CHARS_TEXT, datedRows, lineText, OUTPUT_BYTES, SUBSTRING_QUERY, SUBSTRING_TEXT, wideRows } from './attack-payloads';
import type { Scenario, World } from './scenario';
import type { Call } from './team-load';

/** Findings 1, 4 (the reads) and 5: team B reads its own large documents in the costliest ways the API allows. */

const MCP_BATCH_CALLS = 20;

const attacker = (w: World, clients: number, call: Call) => ({ team: 'B', client: w.clients.B, clients, next: () => call });

async function writeOne(w: World, toolName: string, output: string): Promise<string> {
  const [memId] = await recordSerialized(w.setup, w.members.B, toolName, [output]);
  return memId;
}

interface LookupFlood {
  id: string;
  finding: number;
  title: string;
  clients: number;
  /** recallToolResult aliases in each request, all on the same mem id. */
  aliases: number;
  argument: 'query' | 'jsonPath' | 'pattern';
  value: string;
  /** The value as the attack's description shows it. */
  shown?: string;
  document: { toolName: string; build: () => string; described: string };
  /** Where a JSONPath must be evaluated, checked first: the scenario would measure something else otherwise. */
  evaluatedBy?: 'database' | 'library';
}

/** Team B's `clients` loops, each sending one request of `aliases` recallToolResult lookups on one large document. */
function lookupFlood(f: LookupFlood): Scenario {
  const shown = f.shown ?? JSON.stringify(f.value);
  return {
    id: f.id,
    finding: f.finding,
    title: f.title,
    attack: `${f.clients} clients, each ${f.aliases} aliases of recallToolResult(${f.argument}: ${shown}) on ${f.document.described}`,
    prepare: async (w) => {
      if (f.evaluatedBy && planJsonPath(f.value).kind !== f.evaluatedBy)
        throw new Error(`${f.value} is no longer evaluated by ${f.evaluatedBy}`);
      const memId = await writeOne(w, f.document.toolName, f.document.build());
      const query = aliasedQuery('$m: String!, $p: String!', `recallToolResult(memId: $m, ${f.argument}: $p)`, f.aliases);
      const call = graphqlCall(f.title, w.members.B.token, query, { m: memId, p: f.value });
      return { attackers: [attacker(w, f.clients, call)], bystander: w.bystander(), judge: 'bystander' };
    },
  };
}

const SUBSTRING_DOCUMENT = { toolName: 'fetch_page', build: () => SUBSTRING_TEXT, described: 'a 2,000,000-char text' };

export const lookupScenarios: Scenario[] = [
  lookupFlood({
    id: '1a',
    finding: 1,
    title: 'substring lookup bomb, GraphQL',
    clients: 4,
    aliases: 15,
    argument: 'query',
    value: SUBSTRING_QUERY,
    shown: "'a'×50 + 'b' + 'a'×949",
    document: SUBSTRING_DOCUMENT,
  }),
  {
    id: '1b',
    finding: 1,
    title: 'substring lookup bomb, MCP batch',
    attack: `1 client, one JSON-RPC batch of ${MCP_BATCH_CALLS} recall_tool_result(query) calls as in 1a, no MCP-Protocol-Version header`,
    prepare: async (w) => {
      const memId = await writeOne(w, SUBSTRING_DOCUMENT.toolName, SUBSTRING_DOCUMENT.build());
      const batch = Array.from({ length: MCP_BATCH_CALLS }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'recall_tool_result', arguments: { mem_id: memId, query: SUBSTRING_QUERY } },
      }));
      const call: Call = {
        op: 'mcp batch',
        path: '/mcp',
        token: w.members.B.token,
        headers: { accept: 'application/json, text/event-stream' },
        body: JSON.stringify(batch),
      };
      return { attackers: [attacker(w, 1, call)], bystander: w.bystander(), judge: 'bystander' };
    },
  },
  lookupFlood({
    id: '4b',
    finding: 4,
    title: 'JSONPath flood in PostgreSQL',
    clients: 10,
    aliases: 15,
    argument: 'jsonPath',
    value: '$..*',
    // Just under JSON_PATH_MAX_NODES, so each evaluation walks and serializes it all instead of stopping at the cap.
    document: { toolName: 'export_wide', build: () => wideRows(OUTPUT_BYTES), described: 'a 2 MB document of 9,997 nodes' },
    evaluatedBy: 'database',
  }),
  lookupFlood({
    id: '4c',
    finding: 4,
    title: 'JSONPath flood in the library',
    clients: 4,
    aliases: 8,
    argument: 'jsonPath',
    // match() is not PostgreSQL's: the service evaluates it on the payload it fetched.
    value: "$..[?match(@, '.*Z.*')]",
    document: { toolName: 'export_rows', build: () => datedRows(1_900_000), described: 'a 1.9 MB document' },
    evaluatedBy: 'library',
  }),
  lookupFlood({
    id: '4d',
    finding: 4,
    title: 'pattern (grep) flood',
    clients: 4,
    aliases: 8,
    argument: 'pattern',
    // The text has no digits: no line matches, every search reads it all.
    value: '(?i)(falcon|harbor) [0-9]+',
    document: { toolName: 'fetch_log', build: () => lineText(OUTPUT_BYTES), described: 'a 2 MB text that never matches' },
  }),
  {
    id: '5',
    finding: 5,
    title: 'response bytes',
    attack: '2 clients, priorToolResults(limit: 20) { toolOutput } over 20 outputs of 340,000 × U+0001 (2.04 MB each serialized)',
    prepare: async (w) => {
      for (let i = 0; i < 5; i++) {
        await recordSerialized(
          w.setup,
          w.members.B,
          'control_chars',
          Array.from({ length: 4 }, () => CONTROL_CHARS_TEXT),
        );
      }
      const call = graphqlCall(
        'priorToolResults',
        w.members.B.token,
        '{ priorToolResults(toolName: "control_chars", limit: 20) { toolOutput } }',
      );
      return { attackers: [attacker(w, 2, call)], bystander: w.bystander(), judge: 'response bytes' };
    },
  },
  {
    id: '5b',
    finding: 5,
    title: 'payload responses at the budget: outputs',
    attack:
      '2 clients, priorToolResults(limit: 6) { toolOutput } over 6 outputs of 2 MB of `[{},{},…]` (16 MB served each, as stored text)',
    prepare: async (w) => {
      const output = emptyObjects(2_000_000);
      for (let i = 0; i < 6; i += 3) await recordSerialized(w.setup, w.members.B, 'served_objects', [output, output, output]);
      const call = graphqlCall(
        'priorToolResults',
        w.members.B.token,
        '{ priorToolResults(toolName: "served_objects", limit: 6) { toolOutput } }',
      );
      return { attackers: [attacker(w, 2, call)], bystander: w.bystander(), judge: 'bystander' };
    },
  },
  {
    id: '5c',
    finding: 5,
    title: 'payload responses at the budget: inputs',
    attack:
      '2 clients, toolResultHistory(first: 45) { toolInput } over 45 inputs of 256 KiB of `{"rows":[{},{},…]}` (16 MB served each, as stored text)',
    prepare: async (w) => {
      await recordSerializedInputs(
        w.setup,
        w.members.B,
        'served_inputs',
        Array.from({ length: 45 }, () => `{"rows":${emptyObjects(262_000)}}`),
      );
      const call = graphqlCall(
        'toolResultHistory',
        w.members.B.token,
        '{ toolResultHistory(toolName: "served_inputs", first: 45) { edges { node { toolInput } } } }',
      );
      return { attackers: [attacker(w, 2, call)], bystander: w.bystander(), judge: 'bystander' };
    },
  },
];
