import { randomUUID } from 'node:crypto';
import { GQL } from '../../soak-load';
import { recordSerializedInputs } from '../../neighbours/calls';
import { contains, graphqlBody, graphqlData, type InventoryContext, measureRequests, type Probe, sendExpecting } from '../measure';
import { BODY_MAX_BYTES, emptyObjects, spacesText } from '../shapes';
import { writeOutputs } from './recall';

/** Reads that return payloads, the block, recall events and feedback, and MCP's JSON-RPC batches. */

/**
 * TOOL_INPUT_MAX_BYTES (256 KiB) of `{"rows":[{},{},…]}`, and how many of them one response carries
 * as stored text (`[{}, {}, …]`, 349 KB each) within RESPONSE_MAX_PAYLOAD_BYTES.
 */
const INPUT_OBJECTS = `{"rows":${emptyObjects(262_000)}}`;
const INPUTS_IN_BUDGET = 45;

/**
 * The most 2 MB outputs of `[{},{},…]` one response carries: each goes out as its stored text
 * (`[{}, {}, …]`, 2.67 MB), and RESPONSE_MAX_PAYLOAD_BYTES is 16 MiB.
 */
const PAYLOADS_IN_BUDGET = 6;
/** MAX_EVENT_REFS, MAX_DEGRADED_BRANCHES, MAX_EVENT_JSON_BYTES; MAX_FEEDBACK_ITEMS. */
const EVENT_REFS = 50;
const DEGRADED_BRANCHES = 20;
const EVENT_JSON_BYTES = 16 * 1024;
const FEEDBACK_ITEMS = 50;
/** The SDK's batch bound for protocol revisions before 2025-06-18. */
const MCP_BATCH = 100;

const RECORD_EVENT = 'mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { id } }';

/** An event's 50 refs: half evidence, half hypotheses, so feedback may name each (ids `ref_<i>`). */
const eventRefs = () =>
  Array.from({ length: EVENT_REFS }, (_, i) => ({ id: `ref_${i}`, rank: i + 1, type: i < EVENT_REFS / 2 ? 'EVIDENCE' : 'HYPOTHESIS' }));

/** A recordRecallEvent input at every bound: refs, degraded branches, the two JSON documents. */
function fullEvent(spaceId: string): Record<string, unknown> {
  const json = (key: string) => ({ [key]: 'x'.repeat(EVENT_JSON_BYTES / 2 - 16) });
  return {
    spaceId,
    contractVersion: 'external.v1',
    query: 'q'.repeat(2_000),
    results: eventRefs(),
    degradedBranches: Array.from({ length: DEGRADED_BRANCHES }, (_, i) => `branch_${i}`),
    semanticGroups: json('groups'),
    authoredAlternatives: json('alternatives'),
  };
}

/** Recall events of the member to give feedback on, recorded through the API. */
export async function recordEvents(ctx: InventoryContext, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = graphqlBody(RECORD_EVENT, { input: fullEvent(ctx.member.spaceId) });
    const answer = await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlData);
    ids.push((JSON.parse(answer.text) as { data: { recordRecallEvent: { id: string } } }).data.recordRecallEvent.id);
  }
  return ids;
}

/**
 * A submitRecallFeedback batch at every bound an event's refs allow: 50 items, each naming all 50
 * refs of its event (25 as irrelevant, 25 hypotheses judged) and a 1,000-char comment.
 */
export function fullFeedback(eventIds: readonly string[]): Record<string, unknown> {
  const refs = eventRefs();
  return {
    recalls: eventIds.slice(0, FEEDBACK_ITEMS).map((recallEventId) => ({
      recallEventId,
      clientFeedbackId: randomUUID(),
      used: true,
      irrelevant: true,
      quality: 'LOW',
      feedbackComment: 'c'.repeat(1_000),
      irrelevantResultRefs: refs.filter((r) => r.type === 'EVIDENCE'),
      hypothesisFeedback: refs.filter((r) => r.type === 'HYPOTHESIS').map((r) => ({ hypothesisId: r.id, used: true, quality: 'HIGH' })),
    })),
  };
}

export const readProbes: Probe[] = [
  {
    id: 'P1',
    path: 'Payloads in a response: each tool_output read as its stored text and spliced into the response',
    grows: 'payload size × list size',
    bound: 'RESPONSE_MAX_PAYLOAD_BYTES = 16 MiB (bytes on the wire), GRAPHQL_MAX_PAYLOAD_VALUES = 200',
    runsOn: 'event loop, PostgreSQL',
    worstCase: '`priorToolResults(limit: 6) { toolOutput }` over 6 outputs of 2 MB of `[{},{},…]` (16 MB response as stored text)',
    measure: async (ctx) => {
      await writeOutputs(
        ctx,
        'inventory_P1',
        Array.from({ length: PAYLOADS_IN_BUDGET }, () => emptyObjects(2_000_000)),
      );
      const body = graphqlBody(`{ priorToolResults(toolName: "inventory_P1", limit: ${PAYLOADS_IN_BUDGET}) { toolOutput } }`);
      return measureRequests(
        ctx,
        ctx.runs,
        () => async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlData)),
        {
          memory: true,
        },
      );
    },
  },
  {
    id: 'P2',
    path: "recallBlock: the user message (intent check, the recall event's query fingerprint)",
    grows: 'userMessage length',
    bound: "the intent check reads the first and last 2,000 chars; the event's query, the first 2,000 (MAX_QUERY_CHARS)",
    runsOn: 'event loop, PostgreSQL',
    worstCase: "`userMessage` of 9.9 MB of `a a a …` (its body's parse is in the row; E4 is the parse alone)",
    measure: (ctx) => {
      const userMessage = 'a '.repeat(Math.floor((BODY_MAX_BYTES - 2_048) / 2));
      // The warm-up's conversation: it always has rows, so the row runs alone (INVENTORY_PROBES=P2).
      const body = graphqlBody('query($c: ID!, $u: String) { recallBlock(conversationId: $c, userMessage: $u) { tokens } }', {
        c: ctx.member.conversations[0],
        u: userMessage,
      });
      return measureRequests(
        ctx,
        ctx.runs,
        () => async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlData)),
      );
    },
  },
  {
    id: 'P3',
    path: 'recordRecallEvent: refs, degraded branches, JSON documents',
    grows: 'refs, document sizes',
    bound: 'MAX_EVENT_REFS = 50, MAX_DEGRADED_BRANCHES = 20, 16 KiB of JSON, query ≤ 2,000 chars',
    runsOn: 'event loop, PostgreSQL',
    worstCase: 'an event at every bound',
    measure: (ctx) =>
      measureRequests(ctx, ctx.runs, () => {
        const body = graphqlBody(RECORD_EVENT, { input: fullEvent(ctx.member.spaceId) });
        return async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlData));
      }),
  },
  {
    id: 'P4',
    path: 'submitRecallFeedback: a batch',
    grows: 'items × refs',
    bound: 'MAX_FEEDBACK_ITEMS = 50, MAX_REFS_PER_ITEM = 50 (refs and hypotheses), comments ≤ 1,000 chars',
    runsOn: 'event loop, PostgreSQL',
    worstCase: '50 items, each naming the 50 refs of its event (25 irrelevant, 25 hypotheses) and a 1,000-char comment',
    measure: async (ctx) => {
      const events = await recordEvents(ctx, FEEDBACK_ITEMS);
      return measureRequests(ctx, ctx.runs, () => {
        const body = graphqlBody(GQL.feedback, { input: fullFeedback(events) });
        return async () =>
          void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, contains(`"recordedCount":${FEEDBACK_ITEMS}`)));
      });
    },
  },
  {
    id: 'P6',
    path: 'Tool inputs in a response: each tool_input read as its stored text and spliced into the response',
    grows: 'input size × list size',
    bound: 'TOOL_INPUT_MAX_BYTES = 256 KiB, RESPONSE_MAX_PAYLOAD_BYTES = 16 MiB (bytes on the wire), GRAPHQL_MAX_PAYLOAD_VALUES = 200',
    runsOn: 'event loop, PostgreSQL',
    worstCase: `\`toolResultHistory(first: ${INPUTS_IN_BUDGET}) { edges { node { toolInput } } }\` over ${INPUTS_IN_BUDGET} inputs of 256 KiB of \`{"rows":[{},{},…]}\` (16 MB response as stored text)`,
    measure: async (ctx) => {
      await recordSerializedInputs(
        ctx.client,
        ctx.member,
        'inventory_P6',
        Array.from({ length: INPUTS_IN_BUDGET }, () => INPUT_OBJECTS),
      );
      const body = graphqlBody(
        `{ toolResultHistory(toolName: "inventory_P6", first: ${INPUTS_IN_BUDGET}) { edges { node { toolInput } } } }`,
      );
      return measureRequests(
        ctx,
        ctx.runs,
        () => async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.member.token }, graphqlData)),
        { memory: true },
      );
    },
  },
  {
    id: 'P5',
    path: 'MCP: a JSON-RPC batch of tool calls',
    grows: 'batch length × each call',
    bound: 'refused from MCP 2025-06-18 on; 100 before (the SDK); RESPONSE_MAX_PAYLOAD_BYTES = 16 MiB read',
    runsOn: 'event loop, PostgreSQL',
    worstCase: '100 × `recall_tool_result(format: full)` over 8 texts of 2 MiB of spaces, no MCP-Protocol-Version header',
    maxRuns: 3,
    measure: async (ctx) => {
      const memIds = await writeOutputs(
        ctx,
        'inventory_P5',
        Array.from({ length: 8 }, () => JSON.stringify(spacesText())),
      );
      const batch = Array.from({ length: MCP_BATCH }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'recall_tool_result', arguments: { mem_id: memIds[id % memIds.length], format: 'full' } },
      }));
      const body = JSON.stringify(batch);
      const headers = { accept: 'application/json, text/event-stream' };
      return measureRequests(ctx, ctx.runs, () => async () => {
        await sendExpecting(ctx, '/mcp', body, { token: ctx.member.token, headers }, contains('RESPONSE_MAX_PAYLOAD_BYTES'));
      });
    },
  },
];
