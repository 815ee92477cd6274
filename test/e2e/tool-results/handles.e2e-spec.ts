import request from 'supertest';
import { STUB_MARKER } from '../../../src/tool-results/handle/stub';
import { memberOfNewSpace, toolResult, type SpaceMember, type ToolResultInputShape } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { seededRandom } from '../../support/seeded-random';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Handle {
  memId: string;
  toolName: string;
  toolCallId: string;
  sizeChars: number;
  summaryOneliner: string;
  schemaHint: string | null;
  headPreview: string | null;
  stub: string;
}
interface Block {
  type: string;
  tool_use_id?: string;
  content?: unknown;
  [key: string]: unknown;
}
interface Message {
  role: string;
  content: string | Block[];
}
interface Compacted {
  messages: Message[];
  compactedCount: number;
  handles: Handle[];
}
interface RecordPayload {
  recordToolResults: {
    createdCount: number;
    duplicateCount: number;
    snapshots: { id: string; memId: string; toolUseId: string; handle: Handle }[];
  };
}

const HANDLE = 'handle { memId toolName toolCallId sizeChars summaryOneliner schemaHint headPreview stub }';
const RECORD_WITH_HANDLE = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { createdCount duplicateCount snapshots { id memId toolUseId ${HANDLE} } }
}`;
const BY_ID = `query($id: ID!) { toolResult(id: $id) { id ${HANDLE} } }`;
const HISTORY = `query($c: ID, $first: Int) {
  toolResultHistory(conversationId: $c, first: $first) { edges { node { id ${HANDLE} } } pageInfo { hasNextPage } }
}`;
const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) {
    messages compactedCount
    handles { memId toolName toolCallId sizeChars summaryOneliner schemaHint headPreview stub }
  }
}`;
const RECALL = `query($m: String!, $f: RecallFormat) { recallToolResult(memId: $m, format: $f) }`;

const MEM_ID_IN_STUB = /recall_tool_result\(mem_id='(mem_[a-z2-7]{16})'/;
const GRAPHQL_MAX_ALIASES = 15;

/** The content of the tool_result block answering `toolUseId`. */
function toolResultContent(messages: readonly Message[], toolUseId: string): unknown {
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    const block = message.content.find((b) => b.type === 'tool_result' && b.tool_use_id === toolUseId);
    if (block) return block.content;
  }
  throw new Error(`no tool_result for ${toolUseId}`);
}

/** An assistant tool_use and the user's tool_result answering it, Anthropic Messages format. */
function toolTurn(toolUseId: string, name: string, input: unknown, content: string): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content }] },
  ];
}

const WORDS = [
  'keyboard',
  'switch',
  'tactile',
  'linear',
  'keycap',
  'stabilizer',
  'gasket',
  'plate',
  'firmware',
  'layout',
  'wireless',
  'latency',
];

/** A distinct text of at least `minChars` characters: its index first, then seeded words. */
function distinctText(index: number, minChars: number): string {
  const random = seededRandom(0xc0ffee + index);
  const parts = [`result #${index}:`];
  let length = parts[0].length;
  while (length < minChars) {
    const word = `${WORDS[Math.floor(random() * WORDS.length)]}-${Math.floor(random() * 1e6)}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
}

describe('Handles (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;

  const record = (who: SpaceMember, input: ToolResultInputShape[]) => ok<RecordPayload>(t, RECORD_WITH_HANDLE, { input }, who.token);
  const compact = (who: SpaceMember, input: Record<string, unknown>) =>
    ok<{ compactMessages: Compacted }>(t, COMPACT, { input }, who.token);
  const recall = async (who: SpaceMember, memId: string, format: 'SUMMARY' | 'FULL'): Promise<string> => {
    return (await ok<{ recallToolResult: string }>(t, RECALL, { m: memId, f: format }, who.token)).recallToolResult;
  };

  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
    alice = await memberOfNewSpace(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('R-LG-1 the handle is built once from the payload as received: record, replay, toolResult, history and SUMMARY give the same bytes, keys in received order', async () => {
    const conversationId = crypto.randomUUID();
    const items = Array.from({ length: 50 }, (_, i) => ({
      product_id: `B0${String(100000 + i * 7919).padStart(8, '0')}`,
      title: `Keltra Mechanical Keyboard K${i} - Hot-Swappable, PBT Keycaps`,
      price: 49.99 + i,
      rating: 4 + (i % 10) / 10,
    }));
    const toolOutput = { query: 'mechanical keyboard', marketplace: 'US', items };
    expect(JSON.stringify(toolOutput).length).toBeGreaterThan(2000);
    const input = toolResult(alice.spaceId, conversationId, {
      toolName: 'search_products',
      toolInput: { query: 'mechanical keyboard' },
      toolOutput,
    });

    const first = await record(alice, [input]);
    expect(first.recordToolResults).toMatchObject({ createdCount: 1, duplicateCount: 0 });
    const snapshot = first.recordToolResults.snapshots[0];
    const recorded = snapshot.handle;

    const replay = await record(alice, [input]);
    expect(replay.recordToolResults).toMatchObject({ createdCount: 0, duplicateCount: 1 });
    const replayed = replay.recordToolResults.snapshots[0].handle;

    const byId = await ok<{ toolResult: { id: string; handle: Handle } }>(t, BY_ID, { id: snapshot.id }, alice.token);
    const fetched = byId.toolResult.handle;

    const history = await ok<{ toolResultHistory: { edges: { node: { id: string; handle: Handle } }[] } }>(
      t,
      HISTORY,
      { c: conversationId, first: 20 },
      alice.token,
    );
    expect(history.toolResultHistory.edges.map((e) => e.node.id)).toEqual([snapshot.id]);
    const listed = history.toolResultHistory.edges[0].node.handle;

    const summary = await recall(alice, snapshot.memId, 'SUMMARY');

    // Five reads, one stub, byte for byte; the four handle objects field for field.
    const stubs = [recorded.stub, replayed.stub, fetched.stub, listed.stub, summary];
    expect(new Set(stubs).size).toBe(1);
    for (const handle of [replayed, fetched, listed]) expect(handle).toEqual(recorded);

    expect(recorded).toMatchObject({
      memId: snapshot.memId,
      toolName: 'search_products',
      toolCallId: input.toolUseId,
      sizeChars: JSON.stringify(toolOutput).length,
    });
    // The order the client sent, not jsonb's (shorter keys first: items, query, marketplace).
    expect(recorded.schemaHint!.startsWith('{query, marketplace, items')).toBe(true);
    expect(recorded.headPreview!.startsWith('{"query":"mechanical keyboard","marketplace":"US","items":[')).toBe(true);
    expect(recorded.stub.startsWith(`${STUB_MARKER}\n`)).toBe(true);
    expect(recorded.stub).toContain('\nschema: {query, marketplace, items');
    expect(recorded.stub).toContain(`recall_tool_result(mem_id='${snapshot.memId}'`);
    const stored = await t.sql.query<{ keys: string[]; stub: string }>(
      `select array(select jsonb_object_keys(tool_output)) as keys, stub from message_tool_results where id = $1`,
      [snapshot.id],
    );
    // The stored jsonb has lost the order; the stored stub has not.
    expect(stored.rows[0].keys).toEqual(['items', 'query', 'marketplace']);
    expect(stored.rows[0].stub).toBe(recorded.stub);
  });

  it('R-LG-1 outputs holding special-token strings record, get a handle, compact and answer SUMMARY with the stub', async () => {
    const conversationId = crypto.randomUUID();
    const text = `<|endoftext|>${distinctText(1, 2400)}`;
    const json = {
      prompt: '<|im_start|>system\nYou are a helpful assistant.<|im_end|><|endofprompt|>',
      rows: Array.from({ length: 40 }, (_, i) => ({ id: i, note: `<|im_start|>row ${i}<|fim_prefix|>${'x'.repeat(20)}` })),
    };
    expect(JSON.stringify(json).length).toBeGreaterThan(2000);
    const textInput = toolResult(alice.spaceId, conversationId, {
      toolName: 'fetch_page',
      toolInput: { url: 'https://example.com/<|endoftext|>' },
      toolOutput: text,
    });
    const jsonInput = toolResult(alice.spaceId, conversationId, {
      toolName: 'run_query',
      toolInput: { sql: 'select 1' },
      toolOutput: json,
    });

    const res = await record(alice, [textInput, jsonInput]);
    expect(res.recordToolResults.createdCount).toBe(2);
    const [textSnap, jsonSnap] = res.recordToolResults.snapshots;
    for (const snap of [textSnap, jsonSnap]) {
      expect(snap.handle.stub.startsWith(`${STUB_MARKER}\n`)).toBe(true);
      expect(snap.handle.summaryOneliner.length).toBeGreaterThan(0);
    }
    expect(textSnap.handle.summaryOneliner.startsWith('<|endoftext|>')).toBe(true);
    expect(textSnap.handle.stub).toContain('<|endoftext|>');

    // Compaction: the two recorded results (by tool_use_id) and a fresh one, then a small one.
    const freshId = `toolu_special_${crypto.randomUUID().slice(0, 8)}`;
    const fresh = `<|endofprompt|><|fim_prefix|>${distinctText(2, 2400)}<|im_start|>`;
    const messages: Message[] = [
      { role: 'user', content: 'Compare keyboards <|endoftext|>' },
      ...toolTurn(textInput.toolUseId, 'fetch_page', textInput.toolInput, text),
      ...toolTurn(jsonInput.toolUseId, 'run_query', jsonInput.toolInput, JSON.stringify(json)),
      ...toolTurn(freshId, 'fetch_page', { url: 'https://example.com/2' }, fresh),
      ...toolTurn('toolu_special_small', 'fetch_page', { url: 'https://example.com/3' }, 'short <|endoftext|>'),
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ];
    const input = { spaceId: alice.spaceId, conversationId, messages, keepLastN: 0 };
    const compacted = await compact(alice, input);
    const out = compacted.compactMessages;
    expect(out.compactedCount).toBe(3);
    expect(out.handles.map((h) => h.toolCallId)).toEqual([textInput.toolUseId, jsonInput.toolUseId, freshId]);
    // Already recorded results keep the stubs handed out when they were recorded.
    expect(out.handles[0].stub).toBe(textSnap.handle.stub);
    expect(out.handles[1].stub).toBe(jsonSnap.handle.stub);
    for (const handle of out.handles) {
      expect(handle.stub.startsWith(`${STUB_MARKER}\n`)).toBe(true);
      expect(toolResultContent(out.messages, handle.toolCallId)).toBe(handle.stub);
      expect(await recall(alice, handle.memId, 'SUMMARY')).toBe(handle.stub);
    }
    expect(toolResultContent(out.messages, 'toolu_special_small')).toBe('short <|endoftext|>');
    expect(await recall(alice, out.handles[2].memId, 'FULL')).toBe(fresh);
    expect(await recall(alice, textSnap.memId, 'FULL')).toBe(text);

    const again = await compact(alice, input);
    expect(JSON.stringify(again.compactMessages)).toBe(JSON.stringify(out));
    const flags = await t.sql.query<{ compacted: boolean }>('select compacted from message_tool_results where conversation_id = $1', [
      conversationId,
    ]);
    expect(flags.rows.map((r) => r.compacted)).toEqual([true, true, true]);
  });

  it('R-TR-5 a tool output holding an unpaired surrogate (\\ud800) is BAD_USER_INPUT naming input.0.toolOutput, and nothing is written', async () => {
    const conversationId = crypto.randomUUID();
    const variables = {
      input: [
        toolResult(alice.spaceId, conversationId, { toolOutput: { text: 'before \ud800 after' } }),
        toolResult(alice.spaceId, conversationId, { toolOutput: { text: 'a valid result in the same batch' } }),
      ],
    };
    const body = JSON.stringify({ query: RECORD_WITH_HANDLE, variables });
    // The lone surrogate travels as a JSON escape, as any well-formed client serializes it.
    expect(body).toContain('"before \\ud800 after"');
    const res = await request(t.app.getHttpServer())
      .post('/graphql')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${alice.token}`)
      .send(body);
    const error = (res.body as { errors?: { message: string; extensions?: Record<string, unknown> }[] }).errors?.[0];
    expect(error?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.0.toolOutput' });
    expect(error?.message).toContain('input.0.toolOutput');
    const written = await t.sql.query(
      `select (select count(*) from message_tool_results where conversation_id = $1) + (select count(*) from conversations where id = $1) as n`,
      [conversationId],
    );
    expect(Number(written.rows[0].n)).toBe(0);
  });

  it('R-TR-3 R-LG-3 250 compacted results all stay recallable; the cap of 200 still bounds the uncompacted ones', async () => {
    const conversationId = crypto.randomUUID();
    const count = 250;
    const ids = Array.from({ length: count }, (_, i) => `toolu_bulk_${String(i).padStart(3, '0')}`);
    const texts = ids.map((_, i) => distinctText(i, 2500));
    expect(new Set(texts).size).toBe(count);
    const messages: Message[] = [
      { role: 'user', content: 'Read every page of the catalogue.' },
      ...ids.flatMap((id, i) => toolTurn(id, 'fetch_page', { page: i }, texts[i])),
      { role: 'assistant', content: [{ type: 'text', text: 'All pages read.' }] },
    ];
    const input = { spaceId: alice.spaceId, conversationId, messages, keepLastN: 0 };

    const res = await compact(alice, input);
    const out = res.compactMessages;
    expect(out.compactedCount).toBe(count);
    expect(out.handles.map((h) => h.toolCallId)).toEqual(ids);

    // The mem id each stub on the wire names, in message order.
    const memIds = ids.map((id, i) => {
      const stub = toolResultContent(out.messages, id) as string;
      expect(stub).toBe(out.handles[i].stub);
      const match = MEM_ID_IN_STUB.exec(stub);
      expect(match?.[1]).toBe(out.handles[i].memId);
      return match![1];
    });
    expect(new Set(memIds).size).toBe(count);

    // Every stub's mem id answers FULL with its original text (aliases batched under the limit).
    const perDocument = GRAPHQL_MAX_ALIASES - 3;
    for (let start = 0; start < count; start += perDocument) {
      const chunk = memIds.slice(start, start + perDocument);
      const document = `query(${chunk.map((_, j) => `$m${j}: String!`).join(', ')}) { ${chunk
        .map((_, j) => `r${j}: recallToolResult(memId: $m${j}, format: FULL)`)
        .join(' ')} }`;
      const answer = await ok<Record<string, string>>(t, document, Object.fromEntries(chunk.map((m, j) => [`m${j}`, m])), alice.token);
      chunk.forEach((_, j) => expect({ index: start + j, text: answer[`r${j}`] }).toEqual({ index: start + j, text: texts[start + j] }));
    }

    const rows = await t.sql.query<{ tool_use_id: string; stub: string; compacted: boolean }>(
      'select tool_use_id, stub, compacted from message_tool_results where conversation_id = $1',
      [conversationId],
    );
    expect(rows.rowCount).toBe(count);
    const storedStubs = new Map(rows.rows.map((r) => [r.tool_use_id, r.stub]));
    ids.forEach((id, i) => expect(storedStubs.get(id)).toBe(out.handles[i].stub));
    expect(rows.rows.every((r) => r.compacted)).toBe(true);

    // 210 ordinary (uncompacted) results into the same conversation, in batches of at most 100.
    const small = Array.from({ length: 210 }, (_, i) =>
      toolResult(alice.spaceId, conversationId, { toolUseId: `toolu_small_${String(i).padStart(3, '0')}`, toolOutput: { page: i } }),
    );
    for (let start = 0; start < small.length; start += 100) {
      const batch = await ok<{ recordToolResults: { createdCount: number } }>(
        t,
        `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { createdCount } }`,
        { input: small.slice(start, start + 100) },
        alice.token,
      );
      expect(batch.recordToolResults.createdCount).toBe(Math.min(100, small.length - start));
    }
    const grouped = await t.sql.query<{ compacted: boolean; count: string }>(
      'select compacted, count(*) from message_tool_results where conversation_id = $1 group by compacted order by compacted',
      [conversationId],
    );
    expect(grouped.rows.map((r) => [r.compacted, Number(r.count)])).toEqual([
      [false, 200],
      [true, count],
    ]);
    // The newest 200 small ones are kept.
    const keptSmall = await t.sql.query<{ tool_use_id: string }>(
      'select tool_use_id from message_tool_results where conversation_id = $1 and not compacted order by tool_use_id',
      [conversationId],
    );
    expect(keptSmall.rows.map((r) => r.tool_use_id)).toEqual(small.slice(10).map((s) => s.toolUseId));

    // The same list compacts to the same bytes: every compacted snapshot is still there.
    const again = await compact(alice, input);
    expect(JSON.stringify(again.compactMessages.messages)).toBe(JSON.stringify(out.messages));
    const total = await t.sql.query('select count(*) from message_tool_results where conversation_id = $1', [conversationId]);
    expect(Number(total.rows[0].count)).toBe(200 + count);
  }, 60_000);
});
