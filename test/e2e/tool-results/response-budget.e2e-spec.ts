import request from 'supertest';
import { REQUEST_ROLE } from '../../../src/database/request-role';
import { memberOfNewSpace, toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Sixty payloads of about a million characters in one conversation (issue 38's case). */
const PAYLOADS = 60;
const PAYLOAD_CHARS = 1_000_000;
/** Recorded eight at a time: 8 MB a request, within the 10 MB body limit. */
const BATCH = 8;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

const HISTORY_OUTPUTS = (first: number) => `toolResultHistory(conversationId: $c, first: ${first}) { edges { node { id toolOutput } } }`;
const HISTORY_IDS = `query($c: ID) { toolResultHistory(conversationId: $c, first: 100) { edges { node { id } } } }`;

interface HistoryNode {
  id: string;
  toolOutput: unknown;
}
type History = { edges: { node: HistoryNode }[] };

/** A payload of about a million characters, different for each index (so deep-equality means something). */
function payload(index: number): { index: number; rows: string[] } {
  const row = `row ${index} `.padEnd(1000, String.fromCharCode(97 + (index % 26)));
  return { index, rows: Array.from({ length: PAYLOAD_CHARS / 1000 }, () => row) };
}

describe('R-OP-5 response payload budget (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  const conversationId = crypto.randomUUID();
  /** Index of each payload by snapshot id. */
  const indexOf = new Map<string, number>();

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
    for (let start = 0; start < PAYLOADS; start += BATCH) {
      const input = Array.from({ length: Math.min(BATCH, PAYLOADS - start) }, (_, k) =>
        toolResult(alice.spaceId, conversationId, {
          toolName: 'fetch_budget_report',
          toolInput: { report: 'budgetword', index: start + k },
          toolOutput: payload(start + k),
        }),
      );
      const recorded = await ok<{ recordToolResults: { snapshots: { id: string }[] } }>(
        t,
        'mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { snapshots { id } } }',
        { input },
        alice.token,
      );
      recorded.recordToolResults.snapshots.forEach((s, k) => indexOf.set(s.id, start + k));
    }
  }, 300_000);
  afterAll(async () => {
    await t.close();
  });

  /**
   * Runs `work` while the request role cannot read the tool_output column (the rest of the table
   * it still can): a statement that loads a payload fails, so a refusal that comes back as
   * RESPONSE_TOO_LARGE proves the payloads were never read — by the database, let alone this process.
   */
  async function withoutOutputColumn<T>(work: () => Promise<T>): Promise<T> {
    const columns = (
      await t.sql.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_name = 'message_tool_results' and column_name <> 'tool_output'`,
      )
    ).rows.map((r) => `"${r.column_name}"`);
    await t.sql.query(
      `revoke select on message_tool_results from ${REQUEST_ROLE}; grant select (${columns.join(', ')}) on message_tool_results to ${REQUEST_ROLE}`,
    );
    try {
      return await work();
    } finally {
      await t.sql.query(
        `revoke select (${columns.join(', ')}) on message_tool_results from ${REQUEST_ROLE}; grant select on message_tool_results to ${REQUEST_ROLE}`,
      );
    }
  }

  it('R-OP-5 three aliases of toolResultHistory(first:100){toolOutput} are refused before any SQL, naming GRAPHQL_MAX_PAYLOAD_VALUES', async () => {
    const query = `query($c: ID) { a: ${HISTORY_OUTPUTS(100)} b: ${HISTORY_OUTPUTS(100)} c: ${HISTORY_OUTPUTS(100)} }`;
    const res = await gql(t, query, { c: conversationId }, alice.token);
    expect(res.status).toBe(200);
    expect(res.data ?? null).toBeNull();
    const error = expectErrorCode(res, 'RESPONSE_TOO_LARGE', { limit: 'GRAPHQL_MAX_PAYLOAD_VALUES', maxValues: 200, requestedValues: 300 });
    expect(error.message).toMatch(/fewer items \(first\/limit\), use fewer aliases, or leave out toolOutput\/toolInput/);
    // Without a token the document is not even read (R-TN-10): the edge answers first.
    const anonymous = await gql(t, query, { c: conversationId });
    expectErrorCode(anonymous, 'UNAUTHENTICATED');
  });

  it('R-OP-5 a refused document is refused again, one without variables that passed still passes, one with variables is checked for its values', async () => {
    const literal = (first: number) =>
      `toolResultHistory(conversationId: "${conversationId}", first: ${first}) { edges { node { toolOutput } } }`;
    const over = `{ a: ${literal(100)} b: ${literal(100)} c: ${literal(100)} }`;
    for (let i = 0; i < 2; i += 1) {
      const refused = await gql(t, over, {}, alice.token);
      expectErrorCode(refused, 'RESPONSE_TOO_LARGE', { limit: 'GRAPHQL_MAX_PAYLOAD_VALUES', requestedValues: 300 });
    }
    const within = `{ a: ${literal(1)} }`;
    for (let i = 0; i < 2; i += 1) expect((await gql(t, within, {}, alice.token)).errors).toBeUndefined();
    // With variables the same document is checked again for each request's values.
    const sized = (alias: string) => `${alias}: toolResultHistory(conversationId: $c, first: $n) { edges { node { toolOutput } } }`;
    const variable = `query($c: ID, $n: Int) { ${sized('a')} ${sized('b')} ${sized('c')} }`;
    expect((await gql(t, variable, { c: conversationId, n: 1 }, alice.token)).errors).toBeUndefined();
    const refused = await gql(t, variable, { c: conversationId, n: 100 }, alice.token);
    expectErrorCode(refused, 'RESPONSE_TOO_LARGE', { limit: 'GRAPHQL_MAX_PAYLOAD_VALUES', requestedValues: 300 });
  });

  it('R-OP-5 one alias of first:100 over sixty 1 MB payloads is refused naming RESPONSE_MAX_PAYLOAD_BYTES, and no payload is read', async () => {
    const sizes = (await t.sql.query<{ chars: string }>('select sum(size_chars) as chars from message_tool_results')).rows[0];
    const totalChars = Number(sizes.chars);
    expect(totalChars).toBeGreaterThan(PAYLOADS * PAYLOAD_CHARS);

    // Loose, for the note: the sixty payloads would be at least 60 MB of strings in this process.
    const heapBefore = process.memoryUsage().heapUsed;
    const refused = await gql(t, `query($c: ID) { ${HISTORY_OUTPUTS(100)} }`, { c: conversationId }, alice.token);
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(refused.status).toBe(200);
    expect(refused.data ?? null).toBeNull();
    expectErrorCode(refused, 'RESPONSE_TOO_LARGE', {
      limit: 'RESPONSE_MAX_PAYLOAD_BYTES',
      maxBytes: DEFAULT_MAX_BYTES,
      requestedBytes: totalChars,
    });
    console.log(
      `refused first:100: requestedBytes ${totalChars} > maxBytes ${DEFAULT_MAX_BYTES}; heap growth over the request ${(heapGrowth / 1048576).toFixed(1)} MiB`,
    );
    expect(heapGrowth).toBeLessThan(PAYLOADS * PAYLOAD_CHARS);

    // Sound: while the request role cannot read tool_output the refusal is the same, so it read no payload.
    const blind = await withoutOutputColumn(() => gql(t, `query($c: ID) { ${HISTORY_OUTPUTS(100)} }`, { c: conversationId }, alice.token));
    expectErrorCode(blind, 'RESPONSE_TOO_LARGE', { limit: 'RESPONSE_MAX_PAYLOAD_BYTES', requestedBytes: totalChars });
    // The same revocation makes a read that does load payloads fail: the observable is live.
    const control = await withoutOutputColumn(() => gql(t, `query($c: ID) { ${HISTORY_OUTPUTS(1)} }`, { c: conversationId }, alice.token));
    expectErrorCode(control, 'INTERNAL_SERVER_ERROR');
  });

  it('R-OP-5 after the refusals { me } and /health/ready still answer', async () => {
    const me = await ok<{ me: { userId: string } }>(t, '{ me { userId } }', {}, alice.token);
    expect(me.me.userId).toBe(alice.userId);
    const ready = await request(t.app.getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok' });
  });

  it('R-OP-5 first:10 within the budget returns the payloads deep-equal to what was recorded', async () => {
    const data = await ok<{ toolResultHistory: History }>(
      t,
      `query($c: ID) { ${HISTORY_OUTPUTS(10)} }`,
      { c: conversationId },
      alice.token,
    );
    const nodes = data.toolResultHistory.edges.map((e) => e.node);
    expect(nodes).toHaveLength(10);
    for (const node of nodes) expect(node.toolOutput).toEqual(payload(indexOf.get(node.id)!));
    // Newest first: the last ten recorded.
    expect(nodes.map((n) => indexOf.get(n.id)).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 10 }, (_, k) => PAYLOADS - 10 + k));
  });

  it('R-OP-5 aliases share one budget: two first:10 aliases (20 MB) are one reservation too many', async () => {
    const res = await gql<{ a: History | null; b: History | null }>(
      t,
      `query($c: ID) { a: ${HISTORY_OUTPUTS(10)} b: ${HISTORY_OUTPUTS(10)} }`,
      { c: conversationId },
      alice.token,
    );
    // One alias reserved its ten payloads, the other was refused; the connection is non-null, so
    // the refusal nulls the whole data.
    expect(res.status).toBe(200);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions).toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
      limit: 'RESPONSE_MAX_PAYLOAD_BYTES',
      maxBytes: DEFAULT_MAX_BYTES,
    });
    expect(res.errors![0].extensions!.requestedBytes).toBeGreaterThan(20 * PAYLOAD_CHARS);
    expect(['a', 'b']).toContain(res.errors![0].path?.[0]);
  });

  it('R-OP-5 a read without payloads keeps working at any size (first:100 of ids)', async () => {
    const data = await ok<{ toolResultHistory: History }>(t, HISTORY_IDS, { c: conversationId }, alice.token);
    expect(data.toolResultHistory.edges).toHaveLength(PAYLOADS);
  });

  it('R-OP-5 priorToolResults(limit:100){toolOutput} is refused by the budget; limit 3 is served', async () => {
    const prior = (limit: number) => `query($c: ID) { priorToolResults(conversationId: $c, limit: ${limit}) { id toolOutput } }`;
    const refused = await withoutOutputColumn(() => gql(t, prior(100), { c: conversationId }, alice.token));
    expectErrorCode(refused, 'RESPONSE_TOO_LARGE', { limit: 'RESPONSE_MAX_PAYLOAD_BYTES' });
    const served = await ok<{ priorToolResults: HistoryNode[] }>(t, prior(3), { c: conversationId }, alice.token);
    expect(served.priorToolResults).toHaveLength(3);
    for (const s of served.priorToolResults) expect(s.toolOutput).toEqual(payload(indexOf.get(s.id)!));
  });

  it('R-TN-10 the budget counts bytes on the wire: twenty outputs of 340,000 × U+0001 (2 MB each as JSON) are refused, five are served within it', async () => {
    // Each character is six bytes as JSON (\u0001): 6.8 M characters would be 40.8 MB of response.
    const bob = await memberOfNewSpace(t);
    const conversation = crypto.randomUUID();
    const controls = '\u0001'.repeat(340_000);
    for (let batch = 0; batch < 5; batch++) {
      const input = [0, 1, 2, 3].map(() => toolResult(bob.spaceId, conversation, { toolOutput: controls }));
      await ok(t, 'mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { createdCount } }', { input }, bob.token);
    }
    const prior = (limit: number) => `query($c: ID) { priorToolResults(conversationId: $c, limit: ${limit}) { id toolOutput } }`;
    const refused = await gql(t, prior(20), { c: conversation }, bob.token);
    const error = expectErrorCode(refused, 'RESPONSE_TOO_LARGE', { limit: 'RESPONSE_MAX_PAYLOAD_BYTES', maxBytes: DEFAULT_MAX_BYTES });
    expect(error.extensions?.requestedBytes).toBe(20 * (6 * 340_000 + 2));
    expect(refused.data ?? null).toBeNull();

    const served = await request(t.app.getHttpServer())
      .post('/graphql')
      .set({ 'content-type': 'application/json', authorization: `Bearer ${bob.token}` })
      .send({ query: prior(5), variables: { c: conversation } })
      .expect(200);
    const outputs = (served.body as { data: { priorToolResults: { toolOutput: string }[] } }).data.priorToolResults;
    expect(outputs.map((o) => o.toolOutput === controls)).toEqual([true, true, true, true, true]);
    // What went on the wire stayed within the budget, its payloads counted as they were sent.
    expect(Buffer.byteLength(served.text)).toBeGreaterThan(5 * 6 * 340_000);
    expect(Buffer.byteLength(served.text)).toBeLessThan(DEFAULT_MAX_BYTES);
  });

  it('R-OP-5 recallMemory with toolOutput is refused by the budget over 50 hits; 3 hits are served with their payloads', async () => {
    const search = (limit: number) =>
      `query($s: ID!) { recallMemory(spaceId: $s, query: "budgetword", limit: ${limit}) { results { snapshot { id toolOutput } } } }`;
    // (The search's statement names the output column even when it returns none: no revocation here.)
    const refused = await gql(t, search(50), { s: alice.spaceId }, alice.token);
    expectErrorCode(refused, 'RESPONSE_TOO_LARGE', { limit: 'RESPONSE_MAX_PAYLOAD_BYTES' });
    const served = await ok<{ recallMemory: { results: { snapshot: HistoryNode }[] } }>(t, search(3), { s: alice.spaceId }, alice.token);
    expect(served.recallMemory.results).toHaveLength(3);
    for (const { snapshot } of served.recallMemory.results) expect(snapshot.toolOutput).toEqual(payload(indexOf.get(snapshot.id)!));
  });
});

describe('R-OP-5 response payload budget of recordToolResults duplicates (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;

  beforeAll(async () => {
    t = await createTestApp({ RESPONSE_MAX_PAYLOAD_BYTES: '4096' });
    alice = await memberOfNewSpace(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const RECORD_OUTPUTS = `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { createdCount duplicateCount snapshots { id toolOutput } } }`;

  it('R-OP-5 repeated toolUseIds whose stored payloads pass the budget are refused; without toolOutput the repeat answers', async () => {
    const conversationId = crypto.randomUUID();
    const input = [0, 1, 2].map((i) => toolResult(alice.spaceId, conversationId, { toolOutput: 'x'.repeat(2000) + i }));
    const recorded = await ok<{ recordToolResults: { createdCount: number } }>(
      t,
      'mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { createdCount } }',
      { input },
      alice.token,
    );
    expect(recorded.recordToolResults.createdCount).toBe(3);

    const repeated = await gql(t, RECORD_OUTPUTS, { input }, alice.token);
    expectErrorCode(repeated, 'RESPONSE_TOO_LARGE', { limit: 'RESPONSE_MAX_PAYLOAD_BYTES', maxBytes: 4096, requestedBytes: 3 * 2001 });
    const ids = await ok<{ recordToolResults: { duplicateCount: number } }>(
      t,
      'mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { duplicateCount snapshots { id } } }',
      { input },
      alice.token,
    );
    expect(ids.recordToolResults.duplicateCount).toBe(3);
    // Two of them fit: served with the stored payloads.
    const two = await ok<{ recordToolResults: { snapshots: { toolOutput: unknown }[] } }>(
      t,
      RECORD_OUTPUTS,
      { input: input.slice(0, 2) },
      alice.token,
    );
    expect(two.recordToolResults.snapshots.map((s) => s.toolOutput)).toEqual([input[0].toolOutput, input[1].toolOutput]);
  });
});

describe('R-TN-10 whole payloads read by recalls count in the request budget (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;

  beforeAll(async () => {
    t = await createTestApp({ RESPONSE_MAX_PAYLOAD_BYTES: '4096' });
    alice = await memberOfNewSpace(t);
  });

  /** Three new snapshots of 2,001 characters each (new ones: a payload text served before is kept in memory, not read again). */
  async function recordThree(): Promise<string[]> {
    const conversationId = crypto.randomUUID();
    const input = [0, 1, 2].map((i) => toolResult(alice.spaceId, conversationId, { toolOutput: `${'y'.repeat(2000)}${i}` }));
    const recorded = await ok<{ recordToolResults: { snapshots: { memId: string }[] } }>(
      t,
      'mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { snapshots { memId } } }',
      { input },
      alice.token,
    );
    return recorded.recordToolResults.snapshots.map((s) => s.memId);
  }
  afterAll(async () => {
    await t.close();
  });

  const fullReads = (ids: readonly string[]) =>
    `{ ${ids.map((id, i) => `r${i}: recallToolResult(memId: "${id}", format: FULL, maxChars: 100)`).join(' ')} }`;

  it('R-TN-10 aliases reading whole payloads take turns: past RESPONSE_MAX_PAYLOAD_BYTES the next one answers a bracketed text', async () => {
    const memIds = await recordThree();
    const answers = await ok<Record<string, string>>(t, fullReads([...memIds, (await recordThree())[0]]), {}, alice.token);
    // 2001 + 2001 + 2001 bytes: the third read passes 4096, so the fourth is not made.
    expect(answers.r0).toMatch(/^y{100}/);
    expect(answers.r1).toMatch(/^y{100}/);
    expect(answers.r2).toMatch(/^y{100}/);
    expect(answers.r3).toBe(
      '[tool_memory not read: this request has read 6003 payload bytes, and one request may read 4096 (RESPONSE_MAX_PAYLOAD_BYTES); read the rest in another request]',
    );
    // The budget is the request's: the next request reads again.
    const again = await ok<Record<string, string>>(t, fullReads([memIds[0]]), {}, alice.token);
    expect(again.r0).toMatch(/^y{100}/);
  });

  it('R-TN-10 a payload text kept in memory counts like one read from the database: aliases of one kept text pass the budget too', async () => {
    const [memId] = await recordThree();
    // Read once, so the text is kept in the process's text cache.
    expect((await ok<Record<string, string>>(t, fullReads([memId]), {}, alice.token)).r0).toMatch(/^y{100}/);
    const answers = await ok<Record<string, string>>(t, fullReads([memId, memId, memId, memId]), {}, alice.token);
    expect([answers.r0, answers.r1, answers.r2].every((answer) => /^y{100}/.test(answer))).toBe(true);
    expect(answers.r3).toMatch(/^\[tool_memory not read: this request has read 6003 payload bytes/);
  });

  it('R-TN-10 the calls of one MCP JSON-RPC batch (protocol 2025-03-26) share the budget', async () => {
    const memIds = await recordThree();
    const call = (id: number, memId: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'recall_tool_result', arguments: { mem_id: memId, format: 'full', max_chars: 100 } },
    });
    const res = await request(t.app.getHttpServer())
      .post('/mcp')
      .set({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' })
      .set('authorization', `Bearer ${alice.token}`)
      .send([call(1, memIds[0]), call(2, memIds[1]), call(3, memIds[2]), call(4, (await recordThree())[0])])
      .expect(200);
    const texts = (res.body as { id: number; result: { content: { text: string }[] } }[])
      .sort((a, b) => a.id - b.id)
      .map((m) => m.result.content[0].text);
    expect(texts.filter((text) => text.startsWith('[tool_memory not read:'))).toHaveLength(1);
    expect(texts.filter((text) => /^y{100}/.test(text))).toHaveLength(3);
  });
});
