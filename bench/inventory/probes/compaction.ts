import { graphqlBody, graphqlData, graphqlError, type InventoryContext, measureRequests, type Probe, sendExpecting } from '../measure';
import { BODY_MAX_BYTES, runTag } from '../shapes';

/** compactMessages in each of its five formats, on a 10 MB history, and the team's compaction policies it reads. */

type Format = 'ANTHROPIC' | 'OPENAI_CHAT' | 'OPENAI_RESPONSES' | 'GEMINI' | 'AI_SDK';
const TOOL = 'search_docs';
/** Just over the default sizeThreshold (2,000): every result is a candidate, as many as the body holds. */
const RESULT_CHARS = 2_001;
/** MAX_POLICIES_PER_TEAM: compaction reads them all in one round trip. */
const POLICIES = 100;
const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { messageFormat compactedCount tokensBefore tokensAfter messages }
}`;
const SET_POLICY =
  'mutation($t: String!, $p: ToolCompactionPolicyInput!) { setToolCompactionPolicy(toolName: $t, policy: $p) { version } }';

/** One tool call and its result in each format: `id` the call id, `text` the result. */
const PAIRS: Record<Format, (id: string, text: string) => object[]> = {
  ANTHROPIC: (id, text) => [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: TOOL, input: { q: id } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
  ],
  OPENAI_CHAT: (id, text) => [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: TOOL, arguments: JSON.stringify({ q: id }) } }],
    },
    { role: 'tool', tool_call_id: id, content: text },
  ],
  OPENAI_RESPONSES: (id, text) => [
    { type: 'function_call', id: `fc_${id}`, call_id: id, name: TOOL, arguments: JSON.stringify({ q: id }) },
    { type: 'function_call_output', call_id: id, output: text },
  ],
  GEMINI: (id, text) => [
    { role: 'model', parts: [{ functionCall: { id, name: TOOL, args: { q: id } } }] },
    { role: 'user', parts: [{ functionResponse: { id, name: TOOL, response: { output: text } } }] },
  ],
  AI_SDK: (id, text) => [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: TOOL, input: { q: id } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: TOOL, output: { type: 'text', value: text } }] },
  ],
};

const WORDS = 'the quarterly report lists each region with its revenue churn and signups for the period ';

/** A result text of `chars` characters, its start unique to the run and the call (no count is known from before). */
function resultText(tag: string, chars: number): string {
  return `${tag} ${WORDS.repeat(Math.ceil(chars / WORDS.length))}`.slice(0, chars);
}

/** As many call/result pairs as fit a 10 MB body, every result a candidate. */
function history(format: Format, tag: string): object[] {
  const messages: object[] = [];
  let bytes = 4_096;
  for (let i = 0; ; i++) {
    const id = `call_${tag}_${i}`;
    const pair = PAIRS[format](id, resultText(id, RESULT_CHARS));
    bytes += Buffer.byteLength(JSON.stringify(pair));
    if (bytes > BODY_MAX_BYTES) return messages;
    messages.push(...pair);
  }
}

let policiesSet = false;

/** The team's compaction policies, for tools the histories do not use: read by every compaction, applied to none. */
async function setPolicies(ctx: InventoryContext): Promise<void> {
  if (policiesSet) return;
  for (let i = 0; i < POLICIES; i++) {
    const body = graphqlBody(SET_POLICY, { t: `inventory_policy_${i}`, p: { keepLastN: 1, sizeThreshold: 500, clearInputs: true } });
    await sendExpecting(ctx, '/graphql', body, { token: ctx.adminToken }, graphqlData);
  }
  policiesSet = true;
}

/** A compaction of `messages(tag)` per run, each in a conversation and with call ids of its own (the first call, which records). */
function compactionProbe(id: string, format: Format, shape: string, messages: (tag: string) => object[], expectCompacted: boolean): Probe {
  return {
    id,
    path: `compactMessages ${format}: reading, serializing, hashing, recording, savings, stubs`,
    grows: 'history length, results',
    bound: 'HTTP_BODY_LIMIT = 10 MB; recorded 100 at a time (MAX_BATCH_ITEMS)',
    runsOn: 'event loop, token-count and handle pools, PostgreSQL',
    worstCase: shape,
    maxRuns: 3,
    measure: async (ctx) => {
      await setPolicies(ctx);
      const cut: number[] = [];
      const figures = await measureRequests(ctx, ctx.runs, (run) => {
        const tag = runTag(run);
        const conversationId = ctx.member.conversations[6 + (run % 4)];
        const input = {
          spaceId: ctx.member.spaceId,
          conversationId,
          messageFormat: format,
          keepLastN: 0,
          targetTokens: 1,
          messages: messages(tag),
        };
        const body = graphqlBody(COMPACT, { input });
        return async () => {
          const answer = await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, (a) =>
            a.status === 503
              ? graphqlError('SERVICE_UNAVAILABLE')(a)
              : (graphqlData(a) ?? (a.text.includes('"compactedCount":0') === expectCompacted ? 'the expected compactedCount' : null)),
          );
          if (answer.status === 503 && run > 0) cut.push(run);
        };
      });
      if (cut.length > 0)
        ctx.note(
          `${cut.length} of ${figures.length} runs were cut short by the request's database time (DB_TIME_PER_REQUEST_MS, 16.5 s): SERVICE_UNAVAILABLE, the figures are up to the cut`,
        );
      return figures;
    },
  };
}

const FORMATS: Format[] = ['ANTHROPIC', 'OPENAI_CHAT', 'OPENAI_RESPONSES', 'GEMINI', 'AI_SDK'];

/** A long history of plain messages of about 300 chars: read, serialized, hashed and counted, nothing to replace. */
function plainMessages(tag: string): object[] {
  const messages: object[] = [];
  let bytes = 4_096;
  for (let i = 0; bytes < BODY_MAX_BYTES - 400; i++) {
    const message = { role: i % 2 === 0 ? 'user' : 'assistant', content: resultText(`${tag}_${i}`, 300) };
    bytes += Buffer.byteLength(JSON.stringify(message)) + 1;
    messages.push(message);
  }
  return messages;
}

export const compactionProbes: Probe[] = [
  ...FORMATS.map((format, i) =>
    compactionProbe(
      `C${i + 1}`,
      format,
      `10 MB: ~4,400 results of ${RESULT_CHARS} chars, all replaced (targetTokens 1), 100 team policies`,
      (tag) => history(format, tag),
      true,
    ),
  ),
  {
    ...compactionProbe('C6', 'OPENAI_CHAT', '10 MB of ~32,000 plain messages of 300 chars (no tool result)', plainMessages, false),
    path: 'compactMessages: a long history with nothing to replace (reading, serializing, hashing, counting)',
    grows: 'history length',
  },
];
