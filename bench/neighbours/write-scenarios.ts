import type { Member } from '../soak-load';
import { freshIdPrefix, recordSerializedCall } from './calls';
import { BODY_BYTES, datedRows, OUTPUT_BYTES, rulesBombDocument, wordyOutput } from './attack-payloads';
import type { Scenario, World } from './scenario';
import type { Call } from './team-load';

/** Findings 2 and 4 (the writes): team B's writes and compactions whose cost grows with their input. */

const SET_RULE = 'mutation($t: String!, $r: JSON!) { setToolSummaryRule(toolName: $t, rule: $r) { version } }';
const COMPACT = 'mutation($input: CompactMessagesInput!) { compactMessages(input: $input) { compactedCount tokensBefore tokensAfter } }';
const RULE_TOOL = 'rule_bomb';
const HISTORY_RESULTS = 200;
const WRITERS = 8;
const OUTPUTS_PER_WRITE = 4;
const CONTENT_PLACEHOLDER = '__result_content__';

/** One result's rows as a JSON string literal, sized so that `count` of them fill a body of `bytes`. */
function historyContent(count: number, bytes: number): string {
  const each = Math.floor((bytes * 0.98) / count);
  let rowsBytes = each;
  let literal = JSON.stringify(datedRows(rowsBytes));
  while (literal.length > each) {
    rowsBytes = Math.floor((rowsBytes * each) / literal.length) - 64;
    literal = JSON.stringify(datedRows(rowsBytes));
  }
  return literal;
}

/**
 * compactMessages of an Anthropic history of `HISTORY_RESULTS` results of `toolName`, each
 * `content` (a JSON string literal); fresh tool-use ids on each call, so each is new work.
 */
function compactCall(op: string, m: Member, toolName: string, content: string): Call {
  const prefix = freshIdPrefix();
  const messages: unknown[] = [{ role: 'user', content: 'Page through the export.' }];
  for (let i = 0; i < HISTORY_RESULTS; i++) {
    const id = `${prefix}_${i}`;
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id, name: toolName, input: { page: i } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: CONTENT_PLACEHOLDER }] },
    );
  }
  const input = { spaceId: m.spaceId, conversationId: m.conversations[2], messages };
  const body = JSON.stringify({ query: COMPACT, variables: { input } }).replaceAll(JSON.stringify(CONTENT_PLACEHOLDER), () => content);
  return { op, path: '/graphql', token: m.token, body };
}

/** The rules bomb set for RULE_TOOL; a refusal is no failure of the run (a stricter service may refuse it), it is noted. */
async function setRulesBomb(w: World): Promise<string[]> {
  try {
    await w.setup.call(SET_RULE, { t: RULE_TOOL, r: rulesBombDocument() }, w.adminB);
    return [];
  } catch (error) {
    return [`the rules bomb was refused, the attack ran without it: ${error instanceof Error ? error.message : String(error)}`];
  }
}

function compactionScenario(id: string, withRule: boolean): Scenario {
  const toolName = withRule ? RULE_TOOL : 'rule_free';
  return {
    id,
    finding: 2,
    title: `compactMessages of ${HISTORY_RESULTS} results, ${withRule ? 'with' : 'without'} the rule`,
    attack: `1 client, compactMessages of ${HISTORY_RESULTS} results of 981 dated rows (42 KB; a 9.6 MB body) of a tool ${withRule ? 'with' : 'without'} the rules bomb`,
    prepare: async (w) => {
      const notes = withRule ? await setRulesBomb(w) : [];
      const content = historyContent(HISTORY_RESULTS, BODY_BYTES);
      const attacker = {
        team: 'B',
        client: w.clients.B,
        clients: 1,
        next: () => compactCall('compactMessages', w.members.B, toolName, content),
      };
      return { attackers: [attacker], bystander: w.bystander(), judge: 'bystander', notes };
    },
  };
}

export const writeScenarios: Scenario[] = [
  {
    id: '2a',
    finding: 2,
    title: 'team summary rules bomb, a write',
    attack: '1 client, recordToolResults of a 2 MB output of ~46,000 dated rows, its tool under 8 rules × (7 maxDate + 1 failing count)',
    prepare: async (w) => {
      const notes = await setRulesBomb(w);
      const rows = datedRows(OUTPUT_BYTES);
      const next = () => recordSerializedCall('rules write', w.members.B, w.members.B.conversations[2], RULE_TOOL, [rows]);
      return { attackers: [{ team: 'B', client: w.clients.B, clients: 1, next }], bystander: w.bystander(), judge: 'bystander', notes };
    },
  },
  compactionScenario('2b', true),
  compactionScenario('2c', false),
  {
    id: '4a',
    finding: 4,
    title: 'CPU share: 8 MB writes',
    attack: `${WRITERS} clients, each recordToolResults of ${OUTPUTS_PER_WRITE} word-rich outputs of 2 MB (8.2 MB bodies); team A adds a 100 KB write`,
    prepare: (w) => {
      const outputs = Array.from({ length: OUTPUTS_PER_WRITE }, (_, i) => wordyOutput(20261210 + i, OUTPUT_BYTES));
      const next = () => recordSerializedCall('8 MB write', w.members.B, w.members.B.conversations[3], 'export_orders', outputs);
      const bystander = w.bystander(['me', 'record', 'block', 'recall', 'record100k']);
      return { attackers: [{ team: 'B', client: w.clients.B, clients: WRITERS, next }], bystander, judge: 'bystander' };
    },
  },
];
