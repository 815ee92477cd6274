import { randomBytes } from 'node:crypto';
import { GQL, type Member, toolOutput, toolResultItem } from '../soak-load';
import { pickIndex, seededRandom } from '../seeded';
import type { GraphqlClient } from '../graphql-client';
import type { Call, TeamLoad } from './team-load';

/** The calls the bench's teams send: GraphQL bodies, and the ordinary mixed workload of a team. */

export const graphqlCall = (op: string, token: string | undefined, query: string, variables: Record<string, unknown> = {}): Call => ({
  op,
  path: '/graphql',
  token,
  body: JSON.stringify({ query, variables }),
});

/** `count` aliases `a0…` of `field` in one query declaring `variables` (e.g. `$m: String!`). */
export const aliasedQuery = (variables: string, field: string, count: number): string =>
  `query(${variables}) { ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

const OUTPUT_PLACEHOLDER = '__serialized_output__';

/**
 * recordToolResults of outputs already serialized (megabytes each): the body is put together as
 * text around them, with fresh message and tool-use ids on each call.
 */
export function recordSerializedCall(op: string, m: Member, conversationId: string, toolName: string, outputs: readonly string[]): Call {
  const items = outputs.map((json) =>
    JSON.stringify(toolResultItem(m, conversationId, toolName, { query: op, output: OUTPUT_PLACEHOLDER })).replace(
      JSON.stringify(OUTPUT_PLACEHOLDER),
      () => json,
    ),
  );
  return {
    op,
    path: '/graphql',
    token: m.token,
    body: `{"query":${JSON.stringify(GQL.record)},"variables":{"input":[${items.join(',')}]}}`,
  };
}

/** Writes serialized outputs as `m` (set-up, not measured); their mem ids, in order. */
export async function recordSerialized(
  client: GraphqlClient,
  m: Member,
  toolName: string,
  outputs: readonly string[],
  conversationId = m.conversations[1],
): Promise<string[]> {
  const call = recordSerializedCall('set-up', m, conversationId, toolName, outputs);
  const data = await client.send<{ recordToolResults: { snapshots: { memId: string }[] } }>(call.body.toString(), m.token);
  return data.recordToolResults.snapshots.map((s) => s.memId);
}

/** Writes results whose inputs are these JSON texts (output `ok`) as `m`, eight to a request (set-up, not measured). */
export async function recordSerializedInputs(
  client: GraphqlClient,
  m: Member,
  toolName: string,
  inputs: readonly string[],
  conversationId = m.conversations[1],
): Promise<void> {
  const placeholder = JSON.stringify({ query: 'serialized input' });
  for (let i = 0; i < inputs.length; i += 8) {
    const items = inputs
      .slice(i, i + 8)
      .map((json) =>
        JSON.stringify(toolResultItem(m, conversationId, toolName, { query: 'serialized input', output: 'ok' })).replace(
          placeholder,
          () => json,
        ),
      );
    await client.send(`{"query":${JSON.stringify(GQL.record)},"variables":{"input":[${items.join(',')}]}}`, m.token);
  }
}

/** A team's ordinary requests: `{ me }`, a small write, its block, a small JSONPath read; and a 100 KB write. */
export type MixedOp = 'me' | 'record' | 'block' | 'recall' | 'record100k';
const MIXED_OPS: readonly MixedOp[] = ['me', 'record', 'block', 'recall'];
/** toolOutput items of ~150 bytes: about 1 KB and about 100 KB. */
const SMALL_ITEMS = 6;
const ITEMS_100KB = 690;

/** The reads go to the seeded conversation, the writes to another: the conversation cap never drops what is read. */
const READ_CONVERSATION = 0;
const WRITE_CONVERSATION = 5;

function mixedCall(op: MixedOp, m: Member, random: () => number): Call {
  const write = (items: number) =>
    graphqlCall(op, m.token, GQL.record, {
      input: [toolResultItem(m, m.conversations[WRITE_CONVERSATION], 'query_orders', { query: op, output: toolOutput(random, items) })],
    });
  switch (op) {
    case 'me':
      return graphqlCall(op, m.token, GQL.me);
    case 'record':
      return write(SMALL_ITEMS);
    case 'record100k':
      return write(ITEMS_100KB);
    case 'block':
      return graphqlCall(op, m.token, GQL.block, { c: m.conversations[READ_CONVERSATION] });
    case 'recall':
      return graphqlCall(op, m.token, GQL.path, { m: m.memIds[pickIndex(random, m.memIds.length)], p: '$.items[2].price' });
  }
}

export interface MixedLoadOptions {
  /** Loops, each going round the ops from its own starting point; or, with `perOp`, one loop per op. */
  clients?: number;
  ops?: readonly MixedOp[];
  perOp?: boolean;
  /** A bystander's pace (TeamLoad.intervalMs), over all its loops; none: a flood, as fast as answers come. */
  callsPerSecond?: number;
}

/** `m`'s mixed workload: round-robin loops (floods, a team one call at a time), or one loop per op (team A). */
export function mixedLoad(team: string, client: GraphqlClient, m: Member, options: MixedLoadOptions): TeamLoad {
  const { ops = MIXED_OPS, perOp = false, callsPerSecond } = options;
  const clients = perOp ? ops.length : (options.clients ?? 1);
  const randoms = Array.from({ length: clients }, (_, worker) => seededRandom(20261207 + worker));
  const intervalMs = callsPerSecond === undefined ? undefined : (clients * 1000) / callsPerSecond;
  const opOf = (worker: number, seq: number) => ops[perOp ? worker : (worker + seq) % ops.length];
  return { team, client, clients, intervalMs, next: (worker, seq) => mixedCall(opOf(worker, seq), m, randoms[worker]) };
}

/** A few small results in the conversation `m`'s mixed workload reads (its block and JSONPath reads). */
export async function seedMember(client: GraphqlClient, m: Member): Promise<void> {
  const random = seededRandom(20261208);
  const conversationId = m.conversations[READ_CONVERSATION];
  const input = Array.from({ length: 3 }, () =>
    toolResultItem(m, conversationId, 'query_orders', { query: 'seed', output: toolOutput(random, SMALL_ITEMS) }),
  );
  const data = await client.call<{ recordToolResults: { snapshots: { memId: string }[] } }>(GQL.record, { input }, m.token);
  m.memIds.push(...data.recordToolResults.snapshots.map((s) => s.memId));
}

/** A fresh tool-use id prefix, so that a replayed history is new work each time. */
export const freshIdPrefix = (): string => `toolu_${randomBytes(6).toString('hex')}`;
