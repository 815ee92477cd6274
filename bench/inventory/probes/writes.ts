import { datedRows, rulesBombDocument } from '../../neighbours/attack-payloads';
import { recordSerializedCall } from '../../neighbours/calls';
import { seededRandom } from '../../seeded';
import { GQL, toolOutput, toolResultItem } from '../../soak-load';
import { graphqlBody, graphqlData, type InventoryContext, measureRequests, type Probe, sendExpecting } from '../measure';
import { BODY_MAX_BYTES, emptyObjects, OUTPUT_MAX_BYTES } from '../shapes';

/** recordToolResults at its limits, and the team's summary-rule documents every write reads. */

/** MAX_BATCH_ITEMS. */
const BATCH_ITEMS = 100;
/** MAX_RULE_DOCUMENTS_PER_TEAM. */
const RULE_DOCUMENTS = 100;
const RULES_TOOL = 'inventory_rules_0';
const SET_RULE = 'mutation($t: String!, $r: JSON!) { setToolSummaryRule(toolName: $t, rule: $r) { version } }';
// Each probe writes to conversations of its own: the cap (200 per conversation) never trims what another reads.
const CONVERSATION = { smallItems: 2, largeBatch: 3, rules: 4, ruleDocuments: 5 };

/** Sends a recordToolResults body (text) and checks it recorded every item. */
async function record(ctx: InventoryContext, body: string, items: number): Promise<void> {
  await sendExpecting(
    ctx,
    '/graphql',
    body,
    { token: ctx.member.token },
    (answer) => graphqlData(answer) ?? (answer.text.includes(`"createdCount":${items}`) ? null : `createdCount ${items}`),
  );
}

/** The team's summary rules for `tools` tools: the bomb (8 rules of 7 maxDate parts and a failing count). */
async function setRuleDocuments(ctx: InventoryContext, tools: number): Promise<void> {
  for (let i = 0; i < tools; i++) {
    const body = graphqlBody(SET_RULE, { t: `inventory_rules_${i}`, r: rulesBombDocument() });
    await sendExpecting(ctx, '/graphql', body, { token: ctx.adminToken }, graphqlData);
  }
}

export const writeProbes: Probe[] = [
  {
    id: 'W1',
    path: 'recordToolResults: a full batch of small results (validation, handles, stubs, the batch statement)',
    grows: 'batch size',
    bound: 'MAX_BATCH_ITEMS = 100',
    runsOn: 'event loop, token-count and handle pools, PostgreSQL',
    worstCase: '100 results of about 1 KB',
    measure: (ctx) => {
      const random = seededRandom(20261210);
      const m = ctx.member;
      return measureRequests(ctx, ctx.runs, () => {
        const input = Array.from({ length: BATCH_ITEMS }, () =>
          toolResultItem(m, m.conversations[CONVERSATION.smallItems], 'query_orders', {
            query: 'inventory',
            output: toolOutput(random, 6),
          }),
        );
        const body = graphqlBody(GQL.record, { input });
        return () => record(ctx, body, BATCH_ITEMS);
      });
    },
  },
  {
    id: 'W2',
    path: 'recordToolResults: a batch at the body limit (serialization, batch checks, stubs, the SQL text)',
    grows: 'payload size × batch size',
    bound: 'TOOL_OUTPUT_MAX_BYTES = 2 MiB each, HTTP_BODY_LIMIT = 10 MB',
    runsOn: 'event loop, token-count and handle pools, PostgreSQL',
    worstCase: '5 outputs of 2.1 MB of `[{},{},…]` (10 MB body)',
    measure: (ctx) => {
      const output = emptyObjects(Math.floor((BODY_MAX_BYTES - 4_096) / 5));
      return measureRequests(
        ctx,
        ctx.runs,
        () => {
          const call = recordSerializedCall('inventory', ctx.member, ctx.member.conversations[CONVERSATION.largeBatch], 'export_objects', [
            output,
            output,
            output,
            output,
            output,
          ]);
          return () => record(ctx, call.body.toString(), 5);
        },
        { memory: true },
      );
    },
  },
  {
    id: 'W3',
    path: "recordToolResults: a team's summary rules at their row budget",
    grows: 'rules × parts × rows',
    bound: 'SUMMARY_RULE_ROW_BUDGET = 100,000 row visits; a document ≤ 4,096 chars, 8 rules × 8 parts',
    runsOn: 'handle pool (event loop: handing the text over)',
    worstCase: "the issue's bomb (8 rules, 7 maxDate parts and a failing count each) over 2 MiB of 46,000 dated rows",
    measure: async (ctx) => {
      await setRuleDocuments(ctx, 1);
      const output = datedRows(OUTPUT_MAX_BYTES - 64);
      return measureRequests(ctx, ctx.runs, () => {
        const call = recordSerializedCall('inventory', ctx.member, ctx.member.conversations[CONVERSATION.rules], RULES_TOOL, [output]);
        return () => record(ctx, call.body.toString(), 1);
      });
    },
  },
  {
    id: 'W4',
    path: "recordToolResults: reading the team's summary-rule documents",
    grows: 'distinct tool names with rules in a batch',
    bound: 'MAX_RULE_DOCUMENTS_PER_TEAM = 100, MAX_BATCH_ITEMS = 100',
    runsOn: 'event loop, PostgreSQL',
    worstCase: '100 small results of 100 tools that each have a 3.5 KB rule document (all checked again on each write)',
    measure: async (ctx) => {
      await setRuleDocuments(ctx, RULE_DOCUMENTS);
      const random = seededRandom(20261211);
      const m = ctx.member;
      return measureRequests(ctx, ctx.runs, () => {
        const input = Array.from({ length: BATCH_ITEMS }, (_, i) =>
          toolResultItem(m, m.conversations[CONVERSATION.ruleDocuments], `inventory_rules_${i}`, {
            query: 'rules',
            output: toolOutput(random, 1),
          }),
        );
        const body = graphqlBody(GQL.record, { input });
        return () => record(ctx, body, BATCH_ITEMS);
      });
    },
  },
  {
    id: 'W5',
    path: 'setToolSummaryRule: checking and storing a document',
    grows: 'document size',
    bound: 'MAX_RULE_DOCUMENT_CHARS = 4,096 (8 rules × 8 parts, strings ≤ 200)',
    runsOn: 'event loop, PostgreSQL',
    worstCase: "the issue's 3.5 KB bomb document",
    measure: (ctx) =>
      measureRequests(ctx, ctx.runs, () => {
        const body = graphqlBody(SET_RULE, { t: RULES_TOOL, r: rulesBombDocument() });
        return async () => void (await sendExpecting(ctx, '/graphql', body, { token: ctx.adminToken }, graphqlData));
      }),
  },
];
