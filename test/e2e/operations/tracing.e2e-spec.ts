/**
 * Traces (OpenTelemetry), end to end: the service runs as a process with an OTLP/HTTP exporter
 * pointed at a receiver this test starts (the instrumentations patch modules as Node loads them,
 * which jest's own module loader bypasses). Spans are read as the collector would get them.
 */
import { createServer, type Server } from 'node:http';
import { signToken } from '../../../src/tenancy/token-signer';
import type { GraphqlResponse } from '../../support/graphql';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { freePort } from '../../support/free-port';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process';

const SECRET = 'tracing-secret-that-is-long-enough-0000000';
const mark = (what: string) => `${what}${crypto.randomUUID().replaceAll('-', '')}`;
const PAYLOAD = mark('payloadmark');
const INPUT = mark('inputmark');
const COMMENT = mark('commentmark');
const QUERY = mark('querymark');

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
}
const SERVER = 2;

const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue ?? value?.boolValue ?? value?.doubleValue;
};
const isPg = (span: OtlpSpan) =>
  (attribute(span, 'db.system') === 'postgresql' || attribute(span, 'db.system.name') === 'postgresql') && span.name !== 'pg.connect';

describe('Traces: OpenTelemetry from the HTTP edge to PostgreSQL (process, OTLP receiver)', () => {
  let database: TestDatabase;
  let receiver: Server;
  let service: ServiceProcess;
  let base: string;
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(body);
        const request = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] };
        for (const resource of request.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    service = await startServiceProcess(database.url, {
      AUTH_JWT_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiverPort}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'recall-ledger-e2e',
    });
    base = service.base;
  }, 90000);
  afterAll(async () => {
    await service.stop();
    await new Promise((resolve) => receiver.close(resolve));
    await database.drop();
  });

  /** A traced call: the caller's traceparent, a new trace id and parent span id each. */
  function traced() {
    const traceId = hex(16);
    const parentId = hex(8);
    return { traceId, parentId, headers: { traceparent: `00-${traceId}-${parentId}-01` } };
  }

  async function graphql<T>(query: string, variables: Record<string, unknown>, token: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as GraphqlResponse<T>;
    if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors)}`);
    return { data: body.data as T, requestId: res.headers.get('x-request-id') };
  }

  /** The spans of one trace, once its server span and at least one statement's have arrived. */
  async function traceOf(traceId: string): Promise<OtlpSpan[]> {
    const deadline = Date.now() + 15000;
    for (;;) {
      const mine = spans.filter((span) => span.traceId === traceId);
      if (mine.some((span) => span.kind === SERVER) && mine.some(isPg)) {
        // The rest of the batch: spans that end after the server span (the response's own) come in a
        // later export; nothing observable says the exporter has sent its last one.
        await new Promise((r) => setTimeout(r, 300));
        return spans.filter((span) => span.traceId === traceId);
      }
      if (Date.now() > deadline) throw new Error(`no trace ${traceId}: ${JSON.stringify(mine.map((s) => s.name))}`);
      await new Promise((r) => setTimeout(r, 50)); // a pause between reads of the spans received
    }
  }

  /** Whether `ancestor` is `span`'s parent, or its parent's, and so on. */
  function descends(trace: OtlpSpan[], span: OtlpSpan, ancestor: OtlpSpan): boolean {
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    for (let parent = byId.get(span.parentSpanId ?? ''); parent !== undefined; parent = byId.get(parent.parentSpanId ?? '')) {
      if (parent.spanId === ancestor.spanId) return true;
    }
    return false;
  }

  /** One trace: the server span under the caller's, the operation span under it, statements under that. */
  function expectShape(trace: OtlpSpan[], call: { parentId: string }, operationName: string, rootName: RegExp) {
    const roots = trace.filter((span) => span.kind === SERVER);
    expect(roots).toHaveLength(1);
    const [root] = roots;
    expect(root.parentSpanId).toBe(call.parentId);
    expect(root.name).toMatch(rootName);
    const operation = trace.find((span) => span.name === operationName);
    expect(operation).toBeDefined();
    expect(descends(trace, operation!, root)).toBe(true);
    const statements = trace.filter(isPg);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((statement) => descends(trace, statement, operation!))).toBe(true);
    for (const statement of statements) expect(descends(trace, statement, root)).toBe(true);
    return { root, operation: operation! };
  }

  it('R-OP-8 recordToolResults, recallBlock, an MCP tools/call and a retention sweep each make one trace: HTTP > operation > pg, under the caller traceparent; an unsampled caller makes no span; no payload, comment or token in any span; the log line carries the trace id', async () => {
    const teamId = crypto.randomUUID();
    const admin = await signToken({ userId: crypto.randomUUID(), teamId, scopes: ['admin'], secret: SECRET });
    const me = crypto.randomUUID();
    const token = await signToken({
      userId: me,
      teamId,
      scopes: ['memory:read', 'memory:write', 'feedback:write'],
      secret: SECRET,
    });
    await graphql('{ me { scopes } }', {}, token);
    const spaceId = (
      await graphql<{ createSpace: { id: string } }>(
        `
          mutation {
            createSpace(name: "traces") {
              id
            }
          }
        `,
        {},
        admin,
      )
    ).data.createSpace.id;
    await graphql(
      `
        mutation ($s: ID!, $u: ID!) {
          addSpaceMember(spaceId: $s, userId: $u) {
            id
          }
        }
      `,
      { s: spaceId, u: me },
      admin,
    );
    await graphql(
      `
        mutation {
          setFeatureFlag(key: "recall_feedback_enabled", enabled: true) {
            key
          }
        }
      `,
      {},
      admin,
    );

    // recordToolResults
    const conversationId = crypto.randomUUID();
    const recording = traced();
    const RECORD = `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { snapshots { memId } } }`;
    const input = [
      {
        spaceId,
        conversationId,
        messageId: crypto.randomUUID(),
        toolUseId: 'toolu_traced_1',
        toolName: 'lookup_rows',
        toolInput: { q: INPUT },
        toolOutput: { rows: [PAYLOAD, PAYLOAD] },
      },
    ];
    const recorded = await graphql<{ recordToolResults: { snapshots: { memId: string }[] } }>(RECORD, { input }, token, recording.headers);
    const [{ memId }] = recorded.data.recordToolResults.snapshots;
    const recordTrace = await traceOf(recording.traceId);
    const record = expectShape(recordTrace, recording, 'graphql.resolve recordToolResults', /^POST \/graphql mutation recordToolResults$/);
    expect(attribute(record.root, 'recall_ledger.request_id')).toBe(recorded.requestId);
    expect(attribute(record.operation, 'recall_ledger.team_id')).toBe(teamId);
    expect(Number(attribute(record.operation, 'recall_ledger.snapshots'))).toBe(1);
    expect(attribute(record.operation, 'recall_ledger.space_id')).toBe(spaceId);

    // recallBlock, with a named operation
    const blocking = traced();
    const BLOCK = `query Block($c: ID!, $u: String) { recallBlock(conversationId: $c, userMessage: $u) { text recallEventId } }`;
    const block = await graphql<{ recallBlock: { text: string; recallEventId: string } }>(
      BLOCK,
      { c: conversationId, u: `what did lookup_rows return ${QUERY}` },
      token,
      blocking.headers,
    );
    const blockTrace = await traceOf(blocking.traceId);
    const recall = expectShape(blockTrace, blocking, 'graphql.resolve recallBlock', /^POST \/graphql query Block$/);
    expect(attribute(recall.operation, 'graphql.operation.name')).toBe('Block');
    expect(Number(attribute(recall.operation, 'recall_ledger.refs'))).toBe(1);

    // submitRecallFeedback with a comment (its markers must stay out of every span)
    const SUBMIT = `mutation($i: RecallFeedbackBatchInput!) { submitRecallFeedback(input: $i) { recordedCount } }`;
    const judged = { recallEventId: block.data.recallBlock.recallEventId, used: true, quality: 'HIGH', feedbackComment: COMMENT };
    const submitting = traced();
    await graphql(SUBMIT, { i: { recalls: [judged] } }, token, submitting.headers);
    const submitTrace = await traceOf(submitting.traceId);
    const submit = expectShape(submitTrace, submitting, 'graphql.resolve submitRecallFeedback', /submitRecallFeedback$/);
    expect(Number(attribute(submit.operation, 'recall_ledger.items'))).toBe(1);

    // MCP tools/call
    const calling = traced();
    const mcp = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...calling.headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'recall_tool_result', arguments: { mem_id: memId, format: 'full' } },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain(PAYLOAD);
    const mcpTrace = await traceOf(calling.traceId);
    const tool = expectShape(mcpTrace, calling, 'tools/call recall_tool_result', /^POST \/mcp tools\/call recall_tool_result$/);
    expect(attribute(tool.operation, 'gen_ai.tool.name')).toBe('recall_tool_result');
    expect(attribute(tool.operation, 'recall_ledger.team_id')).toBe(teamId);

    // A search whose text is written into the document, not passed as a variable: the document's
    // literals reach no span either.
    const searching = traced();
    await graphql(`query { recallMemory(spaceId: "${spaceId}", query: "${QUERY}") { recallEventId } }`, {}, token, searching.headers);
    const searchTrace = await traceOf(searching.traceId);
    expectShape(searchTrace, searching, 'graphql.resolve recallMemory', /^POST \/graphql query recallMemory$/);

    // An admin's sweep: its span and its batches' spans under the operation, statements under the batches.
    const sweeping = traced();
    const swept = await graphql<{ runRetentionSweep: { skipped: boolean } }>(
      'mutation { runRetentionSweep { skipped } }',
      {},
      admin,
      sweeping.headers,
    );
    expect(swept.data.runRetentionSweep.skipped).toBe(false);
    const sweepTrace = await traceOf(sweeping.traceId);
    const sweep = expectShape(sweepTrace, sweeping, 'retention.sweep', /^POST \/graphql mutation runRetentionSweep$/);
    expect(attribute(sweep.operation, 'recall_ledger.team_id')).toBe(teamId);
    const batches = sweepTrace.filter((span) => span.name === 'retention.batch');
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) {
      expect(batch.parentSpanId).toBe(sweep.operation.spanId);
      expect(Number(attribute(batch, 'recall_ledger.rows'))).toBeGreaterThanOrEqual(0);
    }
    expect(sweepTrace.filter(isPg).some((statement) => batches.some((batch) => statement.parentSpanId === batch.spanId))).toBe(true);

    // A caller that did not sample its trace: the request is answered, and neither it nor anything
    // under it (statements, the tool's span) makes a span. A sampled call after it flushes the batch.
    const unsampled = traced();
    const before = new Set(spans.map((span) => span.spanId));
    const skipped = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        traceparent: `00-${unsampled.traceId}-${unsampled.parentId}-00`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'recall_tool_result', arguments: { mem_id: memId } },
      }),
    });
    expect(skipped.status).toBe(200);
    const after = traced();
    await graphql('{ me { userId } }', {}, token, after.headers);
    await traceOf(after.traceId);
    const earlier = new Set([recording, blocking, submitting, calling, searching, sweeping].map((call) => call.traceId));
    const since = spans.filter((span) => !before.has(span.spanId) && !earlier.has(span.traceId));
    expect(since.length).toBeGreaterThan(0);
    expect(since.filter((span) => span.traceId !== after.traceId)).toEqual([]);

    // No payload, input, comment, query text or token anywhere in what the collector got.
    const everything = bodies.join('\n');
    for (const secret of [PAYLOAD, INPUT, COMMENT, QUERY, token, admin, token.split('.')[2]]) expect(everything).not.toContain(secret);
    // Statements as text with their placeholders; the ids a tenant scope writes into its statement blanked.
    const statements = [recordTrace, blockTrace, sweepTrace].flat().filter(isPg);
    const texts = statements.map((span) => String(attribute(span, 'db.query.text')));
    expect(texts.some((text) => text.includes("set_config('?', '?', true)"))).toBe(true);
    for (const text of texts) expect(text).not.toContain(me);
    expect(
      recordTrace.filter(isPg).some((span) => /\$1/.test(String(attribute(span, 'db.statement') ?? attribute(span, 'db.query.text')))),
    ).toBe(true);

    // The access log line of the traced request carries its trace id.
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.includes(recorded.requestId!) && line.includes('request completed'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ requestId: recorded.requestId, trace_id: recording.traceId });
  }, 60000);
});
