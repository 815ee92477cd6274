/**
 * Structured tool results over MCP (R-MCP-1, MCP 2025-06-18): every tool lists an outputSchema and
 * answers `structuredContent` that validates against it, beside a text rendered from it. Driven by
 * the SDK's own client against the listening service, on the real database.
 *
 * The SDK's client checks `structuredContent` itself, but only for tools it has seen in a
 * `tools/list` on that client (it caches one validator per listed outputSchema), and then whenever
 * the content is present, `isError` or not; a listed tool answering a success without it is an
 * error. Its server checks only successes. So every client here lists first, and every answer is
 * also checked here against the listed schema with a separate validator.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
// ajv through the SDK's own adapter: ajv is a dependency of the SDK, not of this project.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { feedbackAnswer, previouslyFetchedAnswer, priorAnswer, recallMemoryAnswer } from '../../../src/mcp/mcp-answers';
import type {
  FeedbackOutput,
  PreviouslyFetchedOutput,
  PriorToolResultOutput,
  RecallMemoryOutput,
  RecallToolResultOutput,
} from '../../../src/mcp/mcp-tool-outputs';
import { PREVIOUSLY_FETCHED_HEADER } from '../../../src/recall/block/previously-fetched-block';
import { RECORD, toolResult } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { newMember, newSpace, setFlag } from '../../support/tenancy';
import { listenForMcp } from './support/mcp';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const ALL_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];
const FEEDBACK_TOOL = 'submit_recall_session_feedback';
const OUTPUT_KEYS: Record<string, string[]> = {
  recall_tool_result: ['mem_id', 'text'],
  recall_prior_tool_result: ['has_more', 'omitted', 'results'],
  recall_memory: ['degradations', 'recall_event_id', 'results', 'suggested_actions'],
  previously_fetched: ['block', 'degradations', 'dropped_count', 'injected', 'recall_event_id', 'snapshots', 'suggested_actions'],
  [FEEDBACK_TOOL]: ['error', 'feedback_event_ids', 'recorded_count'],
};
const FEEDBACK_EVENT_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;

interface Team {
  admin: TestIdentity;
  spaceId: string;
  member: TestIdentity;
}

interface RecordedSnapshot {
  id: string;
  memId: string;
  conversationId: string;
}

/** The client's validator provider, recording what it was asked to check. */
class RecordingValidator implements jsonSchemaValidator {
  readonly checked: unknown[] = [];
  private readonly ajv = new AjvJsonSchemaValidator();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const validate = this.ajv.getValidator<T>(schema);
    return (input) => {
      this.checked.push(input);
      return validate(input);
    };
  }
}

interface Connection {
  client: Client;
  tools: Map<string, Tool>;
  clientChecks: RecordingValidator;
}

interface Answer<T> {
  result: CallToolResult;
  text: string;
  structured: T;
}

let t: TestApp;
let mcpUrl: URL;
const clients: Client[] = [];
/** Our own check, separate from the client's. */
const schemaChecks = new AjvJsonSchemaValidator();

async function newTeam(feedback: boolean): Promise<Team> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(t, admin, 'mcp-structured');
  const member = await newMember(t, admin, [spaceId], ALL_SCOPES);
  await setFlag(t, admin, 'recall_feedback_enabled', feedback);
  return { admin, spaceId, member };
}

async function record(team: Team, output: unknown, toolName = 'query_site_data', conversationId?: string): Promise<RecordedSnapshot> {
  const input = toolResult(team.spaceId, conversationId ?? crypto.randomUUID(), { toolName, toolOutput: output });
  return (await ok<{ recordToolResults: { snapshots: RecordedSnapshot[] } }>(t, RECORD, { input: [input] }, team.member.token))
    .recordToolResults.snapshots[0];
}

/** A client that has listed the tools, so it checks their structured content itself. */
async function connect(token: string): Promise<Connection> {
  const clientChecks = new RecordingValidator();
  const client = new Client({ name: 'mcp-structured-e2e', version: '1.0.0' }, { jsonSchemaValidator: clientChecks });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  const { tools } = await client.listTools();
  return { client, tools: new Map(tools.map((tool) => [tool.name, tool])), clientChecks };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Calls a tool; its structured content must be there, valid for the listed schema, and checked by the client too. */
async function callStructured<T>(connection: Connection, name: string, args: Record<string, unknown>): Promise<Answer<T>> {
  const before = connection.clientChecks.checked.length;
  const result = (await connection.client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.structuredContent).toBeDefined();
  const schema = connection.tools.get(name)!.outputSchema!;
  const check = schemaChecks.getValidator(schema)(result.structuredContent);
  expect(check.errorMessage).toBeUndefined();
  expect(check.valid).toBe(true);
  expect(Object.keys(result.structuredContent!).sort()).toEqual(OUTPUT_KEYS[name]);
  expect(connection.clientChecks.checked.slice(before)).toEqual([result.structuredContent]);
  return { result, text: textOf(result), structured: result.structuredContent as T };
}

beforeAll(async () => {
  t = await createTestApp();
  mcpUrl = await listenForMcp(t);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await t?.close();
});

describe('R-MCP-1 structured tool results over MCP', () => {
  it('R-MCP-1 every tool lists a title, its annotations and an object outputSchema in snake_case', async () => {
    const team = await newTeam(true);
    const { tools } = await connect(team.member.token);
    expect([...tools.keys()].sort()).toEqual(Object.keys(OUTPUT_KEYS).sort());
    for (const [name, keys] of Object.entries(OUTPUT_KEYS)) {
      const tool = tools.get(name)!;
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.outputSchema?.type).toBe('object');
      expect(Object.keys(tool.outputSchema?.properties ?? {}).sort()).toEqual(keys);
      expect(tool.outputSchema?.required?.sort()).toEqual(keys);
    }
    expect(tools.get('recall_tool_result')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tools.get('recall_prior_tool_result')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tools.get('recall_memory')!.annotations).toEqual({ readOnlyHint: false, openWorldHint: false });
    expect(tools.get('previously_fetched')!.annotations).toEqual({ readOnlyHint: false, openWorldHint: false });
    expect(tools.get(FEEDBACK_TOOL)!.annotations).toEqual({ readOnlyHint: false, idempotentHint: false, openWorldHint: false });
  });

  it('R-MCP-1 recall_tool_result answers its text as structured content: a json_path value, a line range, a full window, the stub', async () => {
    const team = await newTeam(false);
    const members = await record(team, { members: [{ name: 'Ada Lovelace' }, { name: 'Grace Hopper' }] });
    const log = await record(team, Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'), 'read_log');
    const big = await record(team, { items: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item number ${i}` })) }, 'list_items');
    const connection = await connect(team.member.token);
    const recall = (args: Record<string, unknown>) => callStructured<RecallToolResultOutput>(connection, 'recall_tool_result', args);

    const value = await recall({ mem_id: members.memId, json_path: '$.members[1].name' });
    expect(value.structured).toEqual({ mem_id: members.memId, text: 'Grace Hopper' });
    expect(value.text).toBe('Grace Hopper');

    const lines = await recall({ mem_id: log.memId, line_start: 9, line_count: 2 });
    expect(lines.structured).toEqual({ mem_id: log.memId, text: '     9\tline 9\n    10\tline 10' });
    expect(lines.text).toBe(lines.structured.text);

    const window = await recall({ mem_id: big.memId, format: 'full' });
    expect(window.text).toBe(window.structured.text);
    expect(window.structured.text).toMatch(new RegExp(`\\[… more: continue with recall_tool_result\\(mem_id='${big.memId}', offset=\\d+`));

    const stub = await recall({ mem_id: members.memId });
    expect(stub.structured.text).toContain('[recall-ledger tool_memory ');
    expect(stub.text).toBe(stub.structured.text);

    // A not-found is a text answer, not an error: it is structured too.
    const missing = await recall({ mem_id: members.memId, json_path: 'members.9.name' });
    expect(missing.result.isError).toBeUndefined();
    expect(missing.structured.text).toContain('not found');
  });

  it('R-MCP-1 recall_prior_tool_result: one result with its payload, several with their stubs, as the text shows them', async () => {
    const team = await newTeam(false);
    const older = await record(team, { price: 10 }, 'get_price');
    const newer = await record(team, { price: 12 }, 'get_price');
    const connection = await connect(team.member.token);
    const prior = (args: Record<string, unknown>) => callStructured<PriorToolResultOutput>(connection, 'recall_prior_tool_result', args);

    const one = await prior({ tool_name: 'get_price' });
    expect(one.structured).toEqual({
      results: [
        {
          mem_id: newer.memId,
          tool_name: 'get_price',
          conversation_id: newer.conversationId,
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          stub: expect.stringContaining(newer.memId),
          payload: '{"price":12}',
        },
      ],
      omitted: 0,
      has_more: true,
    });
    expect(one.text).toBe(priorAnswer(one.structured));

    const both = await prior({ tool_name: 'get_price', limit: 5 });
    expect(both.structured.results.map((r) => r.mem_id)).toEqual([newer.memId, older.memId]);
    expect(both.structured.results.every((r) => r.payload === undefined)).toBe(true);
    expect(both.structured).toMatchObject({ omitted: 0, has_more: false });
    expect(both.text).toBe(priorAnswer(both.structured));
    for (const r of both.structured.results) expect(both.text).toContain(r.stub);

    const none = await prior({ tool_name: 'get_nothing' });
    expect(none.structured).toEqual({ results: [], omitted: 0, has_more: false });
    expect(none.text).toMatch(/^No prior tool result matches/);

    // A service error stays a text-only tool error: a listed tool may answer isError without structured content.
    const bad = (await connection.client.callTool({ name: 'recall_prior_tool_result', arguments: { limit: 500 } })) as CallToolResult;
    expect(bad).toEqual({
      content: [{ type: 'text', text: expect.stringMatching(/^BAD_USER_INPUT: limit must be between 1 and 100\./) }],
      isError: true,
    });
  });

  it('R-MCP-1 recall_memory names its hits, refs and recall event in structured content and text alike', async () => {
    const team = await newTeam(true);
    const first = await record(team, { members: [{ name: 'Zanzibarian', city: 'Stone Town' }] });
    const second = await record(team, { members: [{ name: 'Zanzibarian', city: 'Nungwi' }] });
    const connection = await connect(team.member.token);

    const found = await callStructured<RecallMemoryOutput>(connection, 'recall_memory', { space_id: team.spaceId, query: 'Zanzibarian' });
    const { structured } = found;
    expect(found.result.isError).toBeUndefined();
    expect(structured.results.map((r) => r.mem_id).sort()).toEqual([first.memId, second.memId].sort());
    const byMemId = new Map([first, second].map((s) => [s.memId, s]));
    for (const [index, hit] of structured.results.entries()) {
      const recorded = byMemId.get(hit.mem_id)!;
      expect(hit).toMatchObject({
        rank: index + 1,
        tool_name: 'query_site_data',
        conversation_id: recorded.conversationId,
        ref: { type: 'tool_result', id: recorded.id, rank: index + 1 },
      });
      expect(hit.line).toContain(hit.summary);
    }
    expect(structured.suggested_actions).toEqual([{ action: FEEDBACK_TOOL, recall_event_id: structured.recall_event_id }]);
    expect(structured.degradations).toEqual([]);
    expect(found.text).toBe(recallMemoryAnswer('Zanzibarian', structured));
    const stored = await t.sql.query('select id from recall_events where id = $1', [structured.recall_event_id]);
    expect(stored.rowCount).toBe(1);
  });

  it('R-MCP-1 previously_fetched gives the block, its snapshots and its recall event as structured content', async () => {
    const team = await newTeam(true);
    const conversationId = crypto.randomUUID();
    const older = await record(team, { members: [{ name: 'Ada' }] }, 'query_site_data', conversationId);
    const newer = await record(team, { price: 12 }, 'get_price', conversationId);
    const connection = await connect(team.member.token);

    const fetched = await callStructured<PreviouslyFetchedOutput>(connection, 'previously_fetched', { conversation_id: conversationId });
    const { structured } = fetched;
    expect(structured.injected).toBe(true);
    expect(structured.block.startsWith(PREVIOUSLY_FETCHED_HEADER)).toBe(true);
    expect(structured.snapshots.map((s) => [s.mem_id, s.tool_name])).toEqual([
      [newer.memId, 'get_price'],
      [older.memId, 'query_site_data'],
    ]);
    expect(structured.dropped_count).toBe(0);
    expect(structured.recall_event_id).toMatch(/^rec_/);
    expect(structured.suggested_actions).toEqual([{ action: FEEDBACK_TOOL, recall_event_id: structured.recall_event_id }]);
    expect(fetched.text).toBe(previouslyFetchedAnswer(structured));
    expect(fetched.text.startsWith(structured.block)).toBe(true);
    const stored = await t.sql.query('select id from recall_events where id = $1', [structured.recall_event_id]);
    expect(stored.rowCount).toBe(1);
  });

  it('R-MCP-1 submit_recall_session_feedback: structured counts and ids, and on a batch error structured content beside isError', async () => {
    const team = await newTeam(true);
    const snapshot = await record(team, { members: [{ name: 'Quetzalcoatl' }] });
    const connection = await connect(team.member.token);
    const recalled = await callStructured<RecallMemoryOutput>(connection, 'recall_memory', {
      space_id: team.spaceId,
      query: 'Quetzalcoatl',
    });
    const recallEventId = recalled.structured.recall_event_id;
    const submit = (recalls: unknown[]) => callStructured<FeedbackOutput>(connection, FEEDBACK_TOOL, { recalls });

    const submitted = await submit([
      { recall_event_id: recallEventId, used: true, quality: 'high', client_feedback_id: 'structured-1' },
      {
        recall_event_id: recallEventId,
        used: false,
        quality: 'low',
        irrelevant: true,
        feedback_comment: 'Another topic.',
        irrelevant_result_refs: [recalled.structured.results[0].ref],
      },
    ]);
    expect(submitted.result.isError).toBeUndefined();
    expect(submitted.structured).toEqual({ recorded_count: 2, feedback_event_ids: [expect.any(String), expect.any(String)], error: null });
    for (const id of submitted.structured.feedback_event_ids) expect(id).toMatch(FEEDBACK_EVENT_ID);
    expect(submitted.text).toBe(feedbackAnswer(submitted.structured));
    const rows = await t.sql.query<{ id: string; irrelevant_result_refs: unknown }>(
      'select id, irrelevant_result_refs from feedback_events where recall_event_id = $1 order by created_at',
      [recallEventId],
    );
    expect(rows.rows.map((r) => r.id)).toEqual(submitted.structured.feedback_event_ids);
    expect(rows.rows[1].irrelevant_result_refs).toEqual([{ type: 'TOOL_RESULT', id: snapshot.id, rank: 1 }]);

    // Item 0 replays structured-1; item 1 lacks the comment a low quality needs.
    const failed = await submit([
      { recall_event_id: recallEventId, used: true, quality: 'high', client_feedback_id: 'structured-1' },
      { recall_event_id: recallEventId, used: true, quality: 'LOW' },
    ]);
    expect(failed.result.isError).toBe(true);
    expect(failed.structured).toEqual({
      recorded_count: 1,
      feedback_event_ids: [submitted.structured.feedback_event_ids[0]],
      error: {
        failed_index: 1,
        code: 'COMMENT_REQUIRED',
        message: expect.any(String),
        next_action: 'CORRECT_AND_RESUBMIT_FROM_FAILED',
        remediation: expect.stringMatching(/.+/),
      },
    });
    expect(failed.text).toBe(feedbackAnswer(failed.structured));
  });
});
