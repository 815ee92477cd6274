/**
 * R-TN-10: a payload read from the database is never parsed and serialized again on the event
 * loop. A response carries it as the text PostgreSQL returned (its jsonb rendering: a space after
 * each separator, keys by length), so a 2 MiB document of small objects costs no JSON.parse and no
 * JSON.stringify there; a lookup's text of a large document (payloadText of its value, the same
 * characters as before) is read on a thread of the lookup pool, counted in
 * lookup_payload_texts_total.
 */
import request from 'supertest';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Keys already in jsonb's order (by length, then bytes), so JSON.stringify of it is the text a lookup serves. */
function document(rows: number): { id: number; tag: string; items: { k: number }[] } {
  return { id: rows, tag: 'row', items: Array.from({ length: rows }, (_, k) => ({ k })) };
}

describe('Stored payloads in responses and lookups (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  const conversationId = crypto.randomUUID();
  const small = { b: [1, 2], a: { c: 'x' } };
  const large = document(8_000);
  const memIds: Record<'small' | 'large' | 'text', string> = { small: '', large: '', text: '' };
  const ids: Record<'small' | 'large' | 'text', string> = { small: '', large: '', text: '' };

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
    const outputs = { small, large, text: `log line\n${'x'.repeat(40_000)}` };
    for (const [name, toolOutput] of Object.entries(outputs)) {
      const input = [toolResult(alice.spaceId, conversationId, { toolName: `read_${name}`, toolOutput })];
      const recorded = await ok<{ recordToolResults: { snapshots: { id: string; memId: string }[] } }>(t, RECORD, { input }, alice.token);
      memIds[name as keyof typeof memIds] = recorded.recordToolResults.snapshots[0].memId;
      ids[name as keyof typeof ids] = recorded.recordToolResults.snapshots[0].id;
    }
  }, 60_000);
  afterAll(() => t?.close());

  async function post(query: string, variables: Record<string, unknown>): Promise<string> {
    const res = await request(t.app.getHttpServer())
      .post('/graphql')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${alice.token}`)
      .send({ query, variables })
      .expect(200);
    return res.text;
  }

  async function payloadTextsRead(): Promise<number> {
    const metrics = await request(t.app.getHttpServer()).get('/metrics');
    return Number(/^lookup_payload_texts_total\{outcome="ok"\} (\d+)$/m.exec(metrics.text)?.[1] ?? 0);
  }

  it('R-TN-10 toolResult, priorToolResults, toolResultHistory and recallMemory send the stored text of toolOutput (and toolInput) as PostgreSQL returned it', async () => {
    const stored = '{"a": {"c": "x"}, "b": [1, 2]}';
    const one = await post('query($id: ID!) { toolResult(id: $id) { toolOutput } }', { id: ids.small });
    expect(one).toBe(`{"data":{"toolResult":{"toolOutput":${stored}}}}\n`);
    const prior = await post('query($c: ID) { priorToolResults(conversationId: $c, limit: 3) { toolName toolOutput } }', {
      c: conversationId,
    });
    expect(prior).toContain(`{"toolName":"read_small","toolOutput":${stored}}`);
    const history = await post('query($c: ID) { toolResultHistory(conversationId: $c) { edges { node { toolName toolOutput } } } }', {
      c: conversationId,
    });
    expect(history).toContain(`{"toolName":"read_small","toolOutput":${stored}}`);
    const recalled = await post(
      'query($s: ID!) { recallMemory(spaceId: $s, query: "read_small") { results { snapshot { toolName toolOutput } } } }',
      { s: alice.spaceId },
    );
    expect(recalled).toContain(`"toolOutput":${stored}`);
    // toolInput too: a history of 64 inputs of 256 KiB is 16 MiB as well.
    const input = await post('query($id: ID!) { toolResult(id: $id) { toolInput } }', { id: ids.small });
    expect(input).toBe('{"data":{"toolResult":{"toolInput":{"target": "recent_members"}}}}\n');
    // The client reads the same values it recorded.
    expect((JSON.parse(one) as { data: { toolResult: { toolOutput: unknown } } }).data.toolResult.toolOutput).toEqual(small);
  });

  it('R-TN-10 a large document sent in a response is its stored text too, and parses to the values recorded', async () => {
    const text = await post('query($id: ID!) { toolResult(id: $id) { toolOutput } }', { id: ids.large });
    expect(text).toContain('"items": [{"k": 0}, {"k": 1}, {"k": 2}');
    expect((JSON.parse(text) as { data: { toolResult: { toolOutput: unknown } } }).data.toolResult.toolOutput).toEqual(large);
  });

  it('R-LG-2 R-TN-10 a FULL lookup of a large document is read on the lookup pool and serves the same text as before (payloadText of its value)', async () => {
    const before = await payloadTextsRead();
    const answer = await ok<{ r: string }>(
      t,
      'query($m: String!) { r: recallToolResult(memId: $m, format: FULL) }',
      { m: memIds.large },
      alice.token,
    );
    const whole = JSON.stringify(large);
    expect(answer.r.startsWith(whole.slice(0, 1_000))).toBe(true);
    expect(await payloadTextsRead()).toBe(before + 1);
  });

  it('R-TN-10 a small document and a string output are read in place: no thread is asked', async () => {
    const before = await payloadTextsRead();
    const small = await ok<{ r: string }>(
      t,
      'query($m: String!) { r: recallToolResult(memId: $m, format: FULL) }',
      { m: memIds.small },
      alice.token,
    );
    expect(small.r).toBe('{"a":{"c":"x"},"b":[1,2]}');
    const text = await ok<{ r: string }>(
      t,
      'query($m: String!) { r: recallToolResult(memId: $m, format: FULL) }',
      { m: memIds.text },
      alice.token,
    );
    expect(text.r.startsWith('log line\nxxxx')).toBe(true);
    expect(await payloadTextsRead()).toBe(before);
  });
});
