/**
 * R-OP-1: logs carry no payload, comment, query text or token. The real entry point (src/main.ts)
 * runs as a child process at the most verbose level, and every byte it writes to stdout and
 * stderr — pino's destination and anything else — is captured. A run of operations carries unique
 * markers: in tool payloads (recordToolResults, compactMessages), a feedback comment, query texts
 * (recallMemory, recallBlock's user message, recallToolResult's query, an MCP call), the bearer
 * token itself; it includes refused requests (a forged token, invalid input, a validation error)
 * and internal errors (a database fault on the write path, whose driver error describes the
 * offending row). No line may contain a marker or the token; the capture must hold the access
 * lines of those very requests, so the test cannot pass by capturing nothing.
 */
import { Pool } from 'pg';
import { signToken } from '../../../src/tenancy/token-signer';
import type { GraphqlResponse } from '../../support/graphql';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process';

const SECRET = 'log-hygiene-secret-that-is-long-enough-000';
const mark = (what: string) => `${what}${crypto.randomUUID().replaceAll('-', '')}`;
const PAYLOAD = mark('payloadmark');
const INPUT = mark('inputmark');
const COMMENT = mark('commentmark');
const QUERY = mark('querymark');
const MESSAGE = mark('messagemark');

describe('Log hygiene (process)', () => {
  let database: TestDatabase;
  let sql: Pool;
  let service: ServiceProcess;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = new Pool({ connectionString: database.url, max: 2 });
    service = await startServiceProcess(database.url, { LOG_LEVEL: 'trace', AUTH_JWT_SECRET: SECRET });
    base = service.base;
  }, 60000);
  afterAll(async () => {
    await service.stop();
    await sql.end();
    await database.drop();
  });

  async function post<T = Record<string, unknown>>(query: string, variables: Record<string, unknown>, token: string, requestId: string) {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': requestId },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GraphqlResponse<T>;
  }
  async function must<T = Record<string, unknown>>(query: string, variables: Record<string, unknown>, token: string): Promise<T> {
    const res = await post<T>(query, variables, token, crypto.randomUUID());
    if (res.errors) throw new Error(`${query}: ${JSON.stringify(res.errors)}`);
    return res.data as T;
  }

  it('R-OP-1 R-TN-1 no log line holds a payload, comment, query text or token, across successes, refusals and internal errors', async () => {
    const teamId = crypto.randomUUID();
    const admin = await signToken({ userId: crypto.randomUUID(), teamId, scopes: ['admin'], secret: SECRET });
    const userId = crypto.randomUUID();
    const token = await signToken({ userId, teamId, scopes: ['memory:read', 'memory:write', 'feedback:write'], secret: SECRET });
    const spaceId = (await must<{ createSpace: { id: string } }>(`mutation { createSpace(name: "logs") { id } }`, {}, admin)).createSpace
      .id;
    await must(`mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id } }`, { s: spaceId, u: userId }, admin);
    await must(`mutation { setFeatureFlag(key: "recall_feedback_enabled", enabled: true) { key } }`, {}, admin);

    // Successes carrying every marker.
    const conversationId = crypto.randomUUID();
    const item = (toolUseId: string, output: unknown) => ({
      spaceId,
      conversationId,
      messageId: crypto.randomUUID(),
      toolUseId,
      toolName: 'lookup_rows',
      toolInput: { q: INPUT },
      toolOutput: output,
    });
    type Recorded = { recordToolResults: { snapshots: { memId: string }[] } };
    const RECORD = `mutation($input: [ToolResultInput!]!) { recordToolResults(input: $input) { snapshots { memId } } }`;
    const [snap] = (await must<Recorded>(RECORD, { input: [item('toolu_logs_1', { rows: [PAYLOAD] })] }, token)).recordToolResults
      .snapshots;
    const messages = [
      { role: 'user', content: MESSAGE },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_logs_2', name: 'lookup_rows', input: { q: INPUT } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_logs_2', content: `${PAYLOAD} `.repeat(100) }] },
    ];
    const compactInput = { spaceId, conversationId, messages, sizeThreshold: 10, keepLastN: 0 };
    await must(`mutation($i: CompactMessagesInput!) { compactMessages(input: $i) { compactedCount } }`, { i: compactInput }, token);
    await must(`query($m: String!, $q: String) { recallToolResult(memId: $m, query: $q) }`, { m: snap.memId, q: QUERY }, token);
    await must(
      `query($c: ID!, $u: String) { recallBlock(conversationId: $c, userMessage: $u) { text } }`,
      { c: conversationId, u: MESSAGE },
      token,
    );
    type Recall = { recallMemory: { recallEventId: string } };
    const { recallEventId } = (
      await must<Recall>(
        `query($s: ID!, $q: String!) { recallMemory(spaceId: $s, query: $q) { recallEventId } }`,
        { s: spaceId, q: QUERY },
        token,
      )
    ).recallMemory;
    const SUBMIT = `mutation($i: RecallFeedbackBatchInput!) { submitRecallFeedback(input: $i) { recordedCount error { code } } }`;
    const judged = { recallEventId, used: true, quality: 'LOW', feedbackComment: COMMENT };
    expect(
      (await must<{ submitRecallFeedback: { recordedCount: number } }>(SUBMIT, { i: { recalls: [judged] } }, token)).submitRecallFeedback
        .recordedCount,
    ).toBe(1);
    const mcp = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'recall_memory', arguments: { space_id: spaceId, query: QUERY } },
      }),
    });
    expect(mcp.status).toBe(200);

    // Refusals: a forged token, input the service refuses, a query that does not validate.
    const forged = `${token.slice(0, -4)}AAAA`;
    const refusals: [string, GraphqlResponse][] = [
      [
        'UNAUTHENTICATED',
        await post(
          `query($q: String!) { recallMemory(spaceId: "${spaceId}", query: $q) { recallEventId } }`,
          { q: QUERY },
          forged,
          'req-forged',
        ),
      ],
      ['BAD_USER_INPUT', await post(RECORD, { input: [item('toolu_logs_3', { rows: [`${PAYLOAD}\u0000`] })] }, token, 'req-nul')],
      ['GRAPHQL_VALIDATION_FAILED', await post(`{ me { ${QUERY} } }`, {}, token, 'req-invalid')],
    ];
    for (const [code, res] of refusals) expect(res.errors?.[0]?.extensions?.code).toBe(code);
    // A comment over the bound: refused whole (BAD_USER_INPUT) or as its item's failure, either way not recorded.
    type Submitted = { submitRecallFeedback: { recordedCount: number; error: { code: string } | null } };
    const tooLong = { recalls: [{ ...judged, feedbackComment: `${COMMENT} `.repeat(40) }] };
    const long = await post<Submitted>(SUBMIT, { i: tooLong }, token, 'req-long');
    expect(long.errors?.[0]?.extensions?.code ?? long.data?.submitRecallFeedback.error?.code).toEqual(expect.any(String));
    expect(long.data?.submitRecallFeedback.recordedCount ?? 0).toBe(0);

    // Internal errors on the write path: a check constraint the row violates (PostgreSQL's error
    // describes the failing row, payload included), and a table gone.
    await sql.query(`alter table message_tool_results add constraint log_hygiene_probe check (tool_use_id <> 'toolu_logs_4') not valid`);
    const violated = await post(RECORD, { input: [item('toolu_logs_4', { rows: [PAYLOAD] })] }, token, 'req-check');
    await sql.query(`alter table message_tool_results drop constraint log_hygiene_probe`);
    await sql.query('alter table message_tool_results rename to message_tool_results_gone');
    const gone = await post(RECORD, { input: [item('toolu_logs_5', { rows: [PAYLOAD] })] }, token, 'req-gone');
    await sql.query('alter table message_tool_results_gone rename to message_tool_results');
    for (const res of [violated, gone]) expect(res.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');

    // pino's destination writes asynchronously: read the output until the last request's error and
    // access lines are there (the pause is between reads of the output, not a wait in its place).
    const linesOf = (id: string) =>
      service
        .output()
        .split('\n')
        .filter((line) => line.includes(`"requestId":"${id}"`)).length;
    for (const deadline = Date.now() + 15_000; linesOf('req-gone') < 2 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 50));
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.trim().length > 0);
    // The capture is real: the access lines of the refused and failed requests are there, and the
    // internal errors were logged (with their request ids, not their content).
    for (const id of ['req-forged', 'req-nul', 'req-invalid', 'req-long', 'req-check', 'req-gone']) {
      expect(lines.some((line) => line.includes(`"requestId":"${id}"`))).toBe(true);
    }
    expect(lines.filter((line) => line.includes('unhandled error in GraphQL operation')).length).toBeGreaterThanOrEqual(2);

    const secrets = { PAYLOAD, INPUT, COMMENT, QUERY, MESSAGE, token, forged, signature: token.split('.')[2], admin };
    const leaks = Object.entries(secrets).flatMap(([name, secret]) =>
      lines.filter((line) => line.includes(secret)).map((line) => `${name}: ${line}`),
    );
    expect(leaks).toEqual([]);
  }, 60000);
});
