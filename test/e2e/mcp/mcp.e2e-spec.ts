/**
 * Model-facing tools over MCP (R-MCP-1): `POST /mcp` speaks the Model Context Protocol over
 * streamable HTTP with the same bearer token as GraphQL, exposing recall_tool_result,
 * recall_prior_tool_result, recall_memory, previously_fetched and, while the team collects
 * feedback, submit_recall_session_feedback. Driven by the SDK's own client against the
 * listening service.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '../../../src/common/text/tokenizer';
import { PREVIOUSLY_FETCHED_HEADER } from '../../../src/recall/block/previously-fetched-block';
import { RECORD, toolResult } from '../../support/fixtures';
import { ok } from '../../support/graphql';
import { BUMP, newMember, newSpace, setFlag } from '../../support/tenancy';
import { listenForMcp } from './support/mcp';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const ALL_SCOPES = ['memory:read', 'memory:write', 'feedback:write'];
const READ_TOOLS = ['previously_fetched', 'recall_memory', 'recall_prior_tool_result', 'recall_tool_result'];
const FEEDBACK_TOOL = 'submit_recall_session_feedback';
const RECALL_EVENT_ID = /rec_[0-9A-HJKMNP-TV-Z]{26}/;
const FEEDBACK_EVENT_ID = /fb_[0-9A-HJKMNP-TV-Z]{26}/;

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

let t: TestApp;
let mcpUrl: URL;
const clients: Client[] = [];

/** A new team with one space, its admin, and a member holding `scopes`; feedback on or off. */
async function newTeam(feedback: boolean, scopes = ALL_SCOPES): Promise<Team> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(t, admin, 'mcp');
  const member = await memberOf({ admin, spaceId }, scopes);
  await setFlag(t, admin, 'recall_feedback_enabled', feedback);
  return { admin, spaceId, member };
}

function memberOf(team: Pick<Team, 'admin' | 'spaceId'>, scopes: string[]): Promise<TestIdentity> {
  return newMember(t, team.admin, [team.spaceId], scopes);
}

/** Records one tool result through GraphQL, as an agent backend would. */
async function record(team: Team, output: unknown, toolName = 'query_site_data'): Promise<RecordedSnapshot> {
  const input = toolResult(team.spaceId, crypto.randomUUID(), { toolName, toolOutput: output });
  return (await ok<{ recordToolResults: { snapshots: RecordedSnapshot[] } }>(t, RECORD, { input: [input] }, team.member.token))
    .recordToolResults.snapshots[0];
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { text, isError: result.isError === true };
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

describe('R-MCP-1 MCP tools over streamable HTTP', () => {
  it('R-MCP-1 lists the tools with snake_case input schemas; the feedback tool only while feedback is enabled', async () => {
    const off = await newTeam(false);
    const listedOff = await (await connect(off.member.token)).listTools();
    expect(listedOff.tools.map((tool) => tool.name).sort()).toEqual(READ_TOOLS);

    const recall = listedOff.tools.find((tool) => tool.name === 'recall_tool_result')!;
    expect(recall.description).toBeTruthy();
    expect(recall.inputSchema.type).toBe('object');
    expect(Object.keys(recall.inputSchema.properties ?? {}).sort()).toEqual([
      'context_lines',
      'format',
      'json_path',
      'line_count',
      'line_start',
      'max_chars',
      'max_tokens',
      'mem_id',
      'offset',
      'pattern',
      'query',
    ]);
    expect(recall.inputSchema.required).toEqual(['mem_id']);
    const memory = listedOff.tools.find((tool) => tool.name === 'recall_memory')!;
    expect(memory.inputSchema.required?.sort()).toEqual(['query', 'space_id']);

    const on = await newTeam(true);
    const listedOn = await (await connect(on.member.token)).listTools();
    expect(listedOn.tools.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, FEEDBACK_TOOL].sort());
    const feedback = listedOn.tools.find((tool) => tool.name === FEEDBACK_TOOL)!;
    expect(feedback.inputSchema.required).toEqual(['recalls']);
    const item = (feedback.inputSchema.properties!.recalls as { items: { properties: Record<string, unknown>; required: string[] } }).items;
    expect(Object.keys(item.properties)).toEqual(
      expect.arrayContaining([
        'recall_event_id',
        'used',
        'answer_supported',
        'quality',
        'missing_context',
        'irrelevant',
        'feedback_comment',
        'irrelevant_result_refs',
        'hypothesis_feedback',
        'client_feedback_id',
      ]),
    );
    expect(item.required.sort()).toEqual(['recall_event_id', 'used']);

    // The flag is read per request: turning it off removes the tool from the next listing.
    await setFlag(t, on.admin, 'recall_feedback_enabled', false);
    const relisted = await (await connect(on.member.token)).listTools();
    expect(relisted.tools.map((tool) => tool.name)).not.toContain(FEEDBACK_TOOL);
  });

  it('R-MCP-1 recall_tool_result reads the value at a json_path of a result recorded over GraphQL', async () => {
    const team = await newTeam(false);
    const snapshot = await record(team, {
      members: [
        { name: 'Ada Lovelace', registered_at: '2026-05-10' },
        { name: 'Grace Hopper', registered_at: '2026-05-11' },
      ],
    });
    const client = await connect(team.member.token);

    const value = await call(client, 'recall_tool_result', { mem_id: snapshot.memId, json_path: 'members.1.name' });
    expect(value).toEqual({ text: 'Grace Hopper', isError: false });

    const object = await call(client, 'recall_tool_result', { mem_id: snapshot.memId, json_path: 'members.0' });
    expect(JSON.parse(object.text)).toEqual({ name: 'Ada Lovelace', registered_at: '2026-05-10' });

    // RFC 9535 as models write it: a singular path answers the value, any other the node list.
    expect(await call(client, 'recall_tool_result', { mem_id: snapshot.memId, json_path: '$.members[1].name' })).toEqual({
      text: 'Grace Hopper',
      isError: false,
    });
    const names = await call(client, 'recall_tool_result', {
      mem_id: snapshot.memId,
      json_path: "$.members[?@.registered_at > '2026-05-10'].name",
    });
    expect(names).toEqual({ text: '["Grace Hopper"]', isError: false });

    const stub = await call(client, 'recall_tool_result', { mem_id: snapshot.memId });
    expect(stub.text).toContain('[recall-ledger tool_memory ');
    expect(stub.text).toContain(snapshot.memId);

    // Bad keys are text answers, as over GraphQL, not errors.
    const missing = await call(client, 'recall_tool_result', { mem_id: snapshot.memId, json_path: 'members.9.name' });
    expect(missing).toEqual({ text: expect.stringContaining('not found'), isError: false });

    // Another user's mem id reads like an unknown one.
    const stranger = await newTeam(false);
    const foreign = await call(await connect(stranger.member.token), 'recall_tool_result', {
      mem_id: snapshot.memId,
      json_path: 'members.1.name',
    });
    expect(foreign.text).toContain('not found');
    expect(foreign.text).not.toContain('Grace');
  });

  it('R-MCP-1 R-LG-2 recall_tool_result reads a line range of a text result, numbered, with the call that reads on', async () => {
    const team = await newTeam(false);
    const log = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\r\n');
    const snapshot = await record(team, log, 'read_log');
    const client = await connect(team.member.token);
    const answer = await call(client, 'recall_tool_result', { mem_id: snapshot.memId, line_start: 9, line_count: 2 });
    expect(answer).toEqual({ text: '     9\tline 9\n    10\tline 10', isError: false });
    const bounded = await call(client, 'recall_tool_result', { mem_id: snapshot.memId, line_start: 49, max_tokens: 100 });
    expect(bounded.text).toBe('    49\tline 49\n    50\tline 50');
    const past = await call(client, 'recall_tool_result', { mem_id: snapshot.memId, line_start: 51 });
    expect(past).toEqual({ text: '[tool_memory bad range: line_start 51 is past the end (50 lines)]', isError: false });
  });

  it('R-MCP-1 recall_prior_tool_result answers the newest result of a tool with its date, mem id and payload', async () => {
    const team = await newTeam(false);
    const older = await record(team, { price: 10 }, 'get_price');
    const newer = await record(team, { price: 12 }, 'get_price');
    const client = await connect(team.member.token);

    const one = await call(client, 'recall_prior_tool_result', { tool_name: 'get_price' });
    expect(one.isError).toBe(false);
    expect(one.text).toContain(`mem_id ${newer.memId}`);
    expect(one.text).toMatch(/as of \d{4}-\d{2}-\d{2}T/);
    expect(one.text).toContain('{"price":12}');
    expect(one.text).not.toContain(older.memId);

    const both = await call(client, 'recall_prior_tool_result', { tool_name: 'get_price', limit: 5 });
    expect(both.text.indexOf(newer.memId)).toBeGreaterThan(-1);
    expect(both.text.indexOf(older.memId)).toBeGreaterThan(both.text.indexOf(newer.memId));

    // A large payload is windowed within the answer bound, ending with the call that reads on.
    const big = await record(
      team,
      { items: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item number ${i}`, price: i * 1.5 })) },
      'list_items',
    );
    const windowed = await call(client, 'recall_prior_tool_result', { tool_name: 'list_items' });
    expect(windowed.text).toContain(`mem_id ${big.memId}`);
    expect(windowed.text).toMatch(new RegExp(`\\[… more: continue with recall_tool_result\\(mem_id='${big.memId}', offset=\\d+`));
    expect(countTokens(windowed.text)).toBeLessThanOrEqual(8000);

    const bad = await call(client, 'recall_prior_tool_result', { limit: 500 });
    expect(bad).toEqual({ text: expect.stringMatching(/^BAD_USER_INPUT: limit must be between 1 and 100\./), isError: true });
  });

  it('R-MCP-1 previously_fetched returns the conversation block and its recall event', async () => {
    const team = await newTeam(true);
    const snapshot = await record(team, { members: [{ name: 'Ada' }] });
    const client = await connect(team.member.token);

    const block = await call(client, 'previously_fetched', { conversation_id: snapshot.conversationId });
    expect(block.isError).toBe(false);
    expect(block.text).toContain(PREVIOUSLY_FETCHED_HEADER);
    expect(block.text).toContain('query_site_data');
    expect(block.text).toContain(`mem_id ${snapshot.memId}`);
    const recallEventId = block.text.match(/recall_event_id: (rec_\w+)/)?.[1];
    expect(recallEventId).toMatch(RECALL_EVENT_ID);
    expect(block.text).toContain(FEEDBACK_TOOL);
    const stored = await t.sql.query('select id from recall_events where id = $1', [recallEventId]);
    expect(stored.rowCount).toBe(1);

    const unknown = await call(client, 'previously_fetched', { conversation_id: crypto.randomUUID() });
    expect(unknown).toEqual({ text: expect.stringMatching(/^NOT_FOUND: Conversation .* was not found\./), isError: true });
    const malformed = await call(client, 'previously_fetched', { conversation_id: 'not-a-uuid' });
    expect(malformed).toEqual({ text: expect.stringMatching(/^BAD_USER_INPUT: conversation_id must be a UUID/), isError: true });
  });

  it('R-MCP-1 recall_memory finds a recorded snapshot and names its recall_event_id', async () => {
    const team = await newTeam(false);
    const snapshot = await record(team, { members: [{ name: 'Zanzibarian', city: 'Stone Town' }] });
    const client = await connect(team.member.token);

    const found = await call(client, 'recall_memory', { space_id: team.spaceId, query: 'Zanzibarian' });
    expect(found.isError).toBe(false);
    expect(found.text).toMatch(/^recall_event_id: rec_/);
    expect(found.text).toContain(`mem_id ${snapshot.memId}`);
    expect(found.text).toContain(`ref {type: "tool_result", id: "${snapshot.id}", rank: 1}`);
    // Feedback is off for this team: recall does not suggest it.
    expect(found.text).not.toContain(FEEDBACK_TOOL);

    const none = await call(client, 'recall_memory', { space_id: team.spaceId, query: 'nothingmatchesthis' });
    expect(none.text).toContain('No stored tool result matches');

    const otherSpace = await call(client, 'recall_memory', { space_id: crypto.randomUUID(), query: 'Zanzibarian' });
    expect(otherSpace).toEqual({ text: expect.stringMatching(/^NOT_FOUND: Space /), isError: true });
  });

  it('R-MCP-1 R-TN-4 after bumpSpaceGeneration every read tool answers for an earlier snapshot as for a missing one; a new write shows', async () => {
    const team = await newTeam(false);
    const before = await record(team, { members: [{ name: 'Quokkalander' }] }, 'get_roster');
    const client = await connect(team.member.token);
    // Before the bump the snapshot answers (the checks below can fail).
    expect((await call(client, 'recall_tool_result', { mem_id: before.memId, json_path: 'members.0.name' })).text).toBe('Quokkalander');
    await ok(t, BUMP, { s: team.spaceId }, team.admin.token);
    const missingMemId = 'mem_aaaaaaaaaaaaaaaa';

    const keyed = await call(client, 'recall_tool_result', { mem_id: before.memId, json_path: 'members.0.name' });
    const keyedMissing = await call(client, 'recall_tool_result', { mem_id: missingMemId, json_path: 'members.0.name' });
    expect(keyed.text).not.toContain('Quokkalander');
    expect(keyed.text.replaceAll(before.memId, 'MEM')).toBe(keyedMissing.text.replaceAll(missingMemId, 'MEM'));

    const prior = await call(client, 'recall_prior_tool_result', { tool_name: 'get_roster' });
    const priorMissing = await call(client, 'recall_prior_tool_result', { tool_name: 'get_nothing' });
    expect(prior.text.replaceAll('get_roster', 'TOOL')).toBe(priorMissing.text.replaceAll('get_nothing', 'TOOL'));

    const block = await call(client, 'previously_fetched', { conversation_id: before.conversationId });
    expect(block.text).not.toContain(before.memId);
    const search = await call(client, 'recall_memory', { space_id: team.spaceId, query: 'Quokkalander' });
    expect(search.text).toContain('No stored tool result matches');

    const after = await record(team, { members: [{ name: 'Quokkalander' }] }, 'get_roster');
    expect((await call(client, 'recall_memory', { space_id: team.spaceId, query: 'Quokkalander' })).text).toContain(
      `mem_id ${after.memId}`,
    );
    expect((await call(client, 'recall_prior_tool_result', { tool_name: 'get_roster' })).text).toContain(`mem_id ${after.memId}`);
  });

  it('R-MCP-1 submit_recall_session_feedback records judgments with the flag on', async () => {
    const team = await newTeam(true);
    const snapshot = await record(team, { members: [{ name: 'Quetzalcoatl' }] });
    const client = await connect(team.member.token);
    const recalled = await call(client, 'recall_memory', { space_id: team.spaceId, query: 'Quetzalcoatl' });
    const recallEventId = recalled.text.match(/recall_event_id: (rec_\w+)/)![1];
    expect(recalled.text).toContain(`${FEEDBACK_TOOL}(recalls=[{recall_event_id: "${recallEventId}"`);

    const submitted = await call(client, FEEDBACK_TOOL, {
      recalls: [
        { recall_event_id: recallEventId, used: true, answer_supported: true, quality: 'high', client_feedback_id: 'mcp-1' },
        {
          recall_event_id: recallEventId,
          used: false,
          quality: 'low',
          irrelevant: true,
          feedback_comment: 'The snapshot was about another topic.',
          irrelevant_result_refs: [{ type: 'tool_result', id: snapshot.id, rank: 1 }],
        },
      ],
    });
    expect(submitted.isError).toBe(false);
    expect(submitted.text).toContain('recorded_count: 2');
    expect(submitted.text).toContain('error: none');
    const ids = submitted.text.match(new RegExp(FEEDBACK_EVENT_ID.source, 'g'));
    expect(ids).toHaveLength(2);

    const rows = await t.sql.query<{
      id: string;
      quality: string;
      used: boolean;
      irrelevant_result_refs: unknown;
      client_feedback_id: string | null;
    }>(
      'select id, quality, used, irrelevant_result_refs, client_feedback_id from feedback_events where recall_event_id = $1 order by created_at',
      [recallEventId],
    );
    expect(rows.rows.map((r) => [r.id, r.quality, r.used, r.client_feedback_id])).toEqual([
      [ids![0], 'HIGH', true, 'mcp-1'],
      [ids![1], 'LOW', false, null],
    ]);
    expect(rows.rows[1].irrelevant_result_refs).toEqual([{ type: 'TOOL_RESULT', id: snapshot.id, rank: 1 }]);

    // A batch error says what was recorded and what to do next (item 0 replays mcp-1 as it was: R-FB-5).
    const failed = await call(client, FEEDBACK_TOOL, {
      recalls: [
        { recall_event_id: recallEventId, used: true, answer_supported: true, quality: 'high', client_feedback_id: 'mcp-1' },
        { recall_event_id: recallEventId, used: true, quality: 'LOW' },
      ],
    });
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain('recorded_count: 1');
    expect(failed.text).toContain(`feedback_event_ids: ${ids![0]}`);
    expect(failed.text).toContain('failed_index: 1');
    expect(failed.text).toContain('code: COMMENT_REQUIRED');
    expect(failed.text).toContain('next_action: CORRECT_AND_RESUBMIT_FROM_FAILED');
    expect(failed.text).toMatch(/remediation: .+/);

    // Schema violations are tool errors too, never a protocol failure.
    const invalid = await call(client, FEEDBACK_TOOL, { recalls: [{ recall_event_id: recallEventId, used: true, quality: 'superb' }] });
    expect(invalid.isError).toBe(true);
  });

  it('R-MCP-1 with the flag off, calling submit_recall_session_feedback is tool-not-found', async () => {
    const team = await newTeam(false);
    const client = await connect(team.member.token);
    const result = await call(client, FEEDBACK_TOOL, { recalls: [{ recall_event_id: 'rec_01J00000000000000000000000', used: true }] });
    // The SDK's own answer for an unregistered tool: a tool error with JSON-RPC's invalid-params code.
    expect(result).toEqual({ text: `MCP error -32602: Tool ${FEEDBACK_TOOL} not found`, isError: true });
    const rows = await t.sql.query('select 1 from feedback_events where team_id = $1', [team.admin.teamId]);
    expect(rows.rowCount).toBe(0);
  });

  it('R-MCP-1 a call a token has no scope for is an HTTP 403 insufficient_scope naming the scope; nothing runs', async () => {
    const team = await newTeam(true);
    const snapshot = await record(team, { members: [{ name: 'Ada' }] });

    const reader = await connect((await memberOf(team, ['memory:read'])).token);
    await expect(
      reader.callTool({ name: FEEDBACK_TOOL, arguments: { recalls: [{ recall_event_id: 'rec_01J00000000000000000000000', used: true }] } }),
    ).rejects.toMatchObject({ code: 403, message: expect.stringContaining('needs the scope feedback:write') });

    const writer = await connect((await memberOf(team, ['feedback:write'])).token);
    // Listing is allowed; each call checks its own scope.
    expect((await writer.listTools()).tools).toHaveLength(5);
    for (const [name, args] of [
      ['recall_tool_result', { mem_id: snapshot.memId, format: 'full' }],
      ['recall_prior_tool_result', {}],
      ['recall_memory', { space_id: team.spaceId, query: 'Ada' }],
      ['previously_fetched', { conversation_id: snapshot.conversationId }],
    ] as const) {
      const refusal = await writer.callTool({ name, arguments: args }).catch((error: unknown) => error as Error);
      expect(refusal).toMatchObject({ code: 403, message: expect.stringContaining(`The tool ${name} needs the scope memory:read`) });
      expect((refusal as Error).message).not.toContain('Ada');
    }
    const events = await t.sql.query('select 1 from recall_events where team_id = $1', [team.admin.teamId]);
    expect(events.rowCount).toBe(0);
  });

  it('R-MCP-1 no token, or a bad one, is a 401 before any MCP handling', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

    const anonymous = await fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${mcpUrl.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await anonymous.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Send Authorization: Bearer <token>.', data: { code: 'UNAUTHENTICATED' } },
    });

    const forged = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer not.a.jwt' },
      body: JSON.stringify(initialize),
    });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { data: { code: string } } }).error.data.code).toBe('UNAUTHENTICATED');

    await expect(connect('not.a.jwt')).rejects.toMatchObject({ code: 401, message: expect.stringContaining('UNAUTHENTICATED') });

    // A valid token gets MCP's own answer.
    const team = await newTeam(false);
    const ok = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${team.member.token}` },
      body: JSON.stringify(initialize),
    });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { result: { serverInfo: { name: string }; capabilities: { tools?: unknown } } };
    expect(body.result.serverInfo.name).toBe('recall-ledger');
    expect(body.result.capabilities.tools).toBeDefined();

    // Stateless: a lone tools/list needs no initialize round trip first.
    const list = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${team.member.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name).sort()).toEqual(
      READ_TOOLS,
    );

    // Stateless: no session stream to open.
    const get = await fetch(mcpUrl, {
      method: 'GET',
      headers: { authorization: `Bearer ${team.member.token}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });
});
