import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, ErrorCode } from '../../common/errors/app-error';
import { ActorContext, Scope } from '../../tenancy';
import { tokenCounterFor, type ToolResultServices, toolResultServicesFor } from '../../../test/support/tool-results-service';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { BIG_PAYLOAD_TOOL_USE_ID, buildProductResearchTrace } from '../../../test/fixtures/agent-trace.fixture';
import { CompactionService } from '../compaction.service';
import { CompactionPoliciesRepository, CompactionPoliciesService } from '../compaction-policies';
import { deterministicMessageId } from '../compaction';
import { anthropicAdapter } from '../history/anthropic.adapter';
import type { AnthropicMessage as Message } from '../../../test/fixtures/agent-trace.fixture';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('CompactionService (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let service: CompactionService;
  let toolResults: ToolResultServices;
  const team = crypto.randomUUID();
  const space = crypto.randomUUID();
  const otherTeam = crypto.randomUUID();
  const otherSpace = crypto.randomUUID();

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    toolResults = toolResultServicesFor(em);
    service = new CompactionService(
      toolResults.writer,
      toolResults.reader,
      tokenCounterFor(),
      new CompactionPoliciesService(new CompactionPoliciesRepository(em)),
    );
    await em.execute(
      `insert into teams (id) values (?), (?);
       insert into spaces (id, team_id, name) values (?, ?, 's'), (?, ?, 'other');`,
      [team, otherTeam, space, team, otherSpace, otherTeam],
    );
  });
  afterAll(() => db.close());

  /**
   * Each test has a user and a conversation of its own: snapshots are idempotent per user and
   * tool_use_id, and the fixture's tool_use ids and message ids are the same in every test.
   */
  async function newCaller(): Promise<{ actor: ActorContext; conversation: string }> {
    const user = crypto.randomUUID();
    await em.execute('insert into users (id, team_id) values (?, ?)', [user, team]);
    return { actor: new ActorContext(user, team, [Scope.MEMORY_WRITE], [{ id: space, generation: 1 }]), conversation: crypto.randomUUID() };
  }

  function inRequest<T>(work: () => Promise<T>): Promise<T> {
    return RequestContext.create(em, work);
  }

  async function storedToolUseIds(actor: ActorContext): Promise<string[]> {
    const rows = await em.execute<{ tool_use_id: string }[]>(
      'select tool_use_id from message_tool_results where user_id = ? order by created_at, id',
      [actor.userId],
    );
    return rows.map((r) => r.tool_use_id);
  }

  it('R-LG-3 never mutates its input and gives byte-identical output on every call', async () => {
    const { actor, conversation } = await newCaller();
    const trace = deepFreeze(buildProductResearchTrace());
    const copy = structuredClone(trace);
    const first = await inRequest(() => service.compact(actor, { spaceId: space, conversationId: conversation, messages: trace }));
    const second = await inRequest(() => service.compact(actor, { spaceId: space, conversationId: conversation, messages: trace }));
    expect(trace).toStrictEqual(copy);
    expect(first.compactedCount).toBe(1);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    // The second call found the first call's snapshot: one row, not two.
    expect(await storedToolUseIds(actor)).toEqual([BIG_PAYLOAD_TOOL_USE_ID]);
  });

  it('R-LG-3 records in batches of at most 100 and replaces every candidate', async () => {
    const { actor, conversation } = await newCaller();
    const messages: Message[] = [];
    for (let i = 0; i < 250; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `tu_${i}`, name: 'fetch', input: { i } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: `${i} `.repeat(100) }] });
    }
    statements.length = 0;
    const out = await inRequest(() =>
      service.compact(actor, { spaceId: space, conversationId: conversation, messages, sizeThreshold: 100, keepLastN: 0 }),
    );
    // A batch is one call of the write function; the tool_use ids it carries show its size and order.
    const batches = statements.filter((s) => s.includes('record_tool_results(')).map((s) => s.match(/"tool_use_id":"tu_\d+"/g) ?? []);
    expect(batches.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(batches.flat()).toEqual(messages.filter((_, i) => i % 2 === 0).map((_, i) => `"tool_use_id":"tu_${i}"`));
    expect(out.compactedCount).toBe(250);
    expect(out.handles.map((h) => h.toolCallId)).toEqual(messages.filter((_, i) => i % 2 === 0).map((_, i) => `tu_${i}`));
  });

  it('R-LG-3 R-TN-10 with a target, each replacement is written into its own entry: entries written grow with list plus replacements, not their product', async () => {
    const { actor, conversation } = await newCaller();
    const messages: Message[] = [];
    for (let i = 0; i < 150; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `tt_${i}`, name: 'fetch', input: { i } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tt_${i}`, content: `${i} `.repeat(100) }] });
    }
    const writes = jest.spyOn(anthropicAdapter, 'writeStubs');
    try {
      const out = await inRequest(() =>
        service.compact(actor, {
          spaceId: space,
          conversationId: conversation,
          messages,
          sizeThreshold: 100,
          keepLastN: 0,
          targetTokens: 0,
        }),
      );
      expect(out.compactedCount).toBe(150);
      const entriesWritten = writes.mock.calls.reduce((sum, [entries]) => sum + entries.length, 0);
      // Writing the whole list again for each of the 150 replacements was 150 × 300 entries.
      expect(entriesWritten).toBeLessThanOrEqual(2 * (messages.length + 150));
    } finally {
      writes.mockRestore();
    }
  });

  it('R-LG-3 under clearAtLeastTokens it records, yet returns the very input and replaces nothing', async () => {
    const { actor, conversation } = await newCaller();
    const trace = buildProductResearchTrace();
    const out = await inRequest(() =>
      service.compact(actor, { spaceId: space, conversationId: conversation, messages: trace, clearAtLeastTokens: 10_000_000 }),
    );
    expect(await storedToolUseIds(actor)).toEqual([BIG_PAYLOAD_TOOL_USE_ID]);
    expect(out.messages).toBe(trace);
    expect(out).toMatchObject({ compactedCount: 0, handles: [], charsAfter: out.charsBefore, tokensAfter: out.tokensBefore });
    // No stub was handed out, so the snapshot stays under the per-conversation cap (R-TR-3).
    expect(await em.execute('select compacted from message_tool_results where user_id = ?', [actor.userId])).toEqual([
      { compacted: false },
    ]);
    // A call that does hand the stub out marks it.
    await inRequest(() => service.compact(actor, { spaceId: space, conversationId: conversation, messages: trace }));
    expect(await em.execute('select compacted from message_tool_results where user_id = ?', [actor.userId])).toEqual([{ compacted: true }]);
  });

  it('R-TR-3 R-LG-3 a stored result the cap deleted after the lookup is recorded again, never handed out dead', async () => {
    const { actor, conversation } = await newCaller();
    const trace = buildProductResearchTrace();
    const first = await inRequest(() =>
      service.compact(actor, { spaceId: space, conversationId: conversation, messages: trace, clearAtLeastTokens: 10_000_000 }),
    );
    expect(first.compactedCount).toBe(0);
    // The uncompacted row goes (as a concurrent writer's trim would take it) before the next call marks it.
    const found = jest.spyOn(toolResults.reader, 'findByToolUseIds');
    found.mockImplementationOnce(async (who, ids) => {
      const rows = await toolResults.reader.findByToolUseIds(who, ids);
      await em.execute('delete from message_tool_results where user_id = ?', [actor.userId]);
      return rows;
    });
    const out = await inRequest(() => service.compact(actor, { spaceId: space, conversationId: conversation, messages: trace }));
    found.mockRestore();
    expect(out.compactedCount).toBe(1);
    const [row] = await em.execute<{ mem_id: string; compacted: boolean }[]>(
      'select mem_id, compacted from message_tool_results where user_id = ?',
      [actor.userId],
    );
    expect(out.handles[0].memId).toBe(row.mem_id);
    expect(row.compacted).toBe(true);
  });

  it('R-LG-3 R-TN-5 writes nothing without candidates, and refuses a space the actor may not use', async () => {
    const { actor, conversation } = await newCaller();
    const small: Message[] = [{ role: 'user', content: 'hello' }];
    statements.length = 0;
    expect(await inRequest(() => service.compact(actor, { spaceId: space, conversationId: conversation, messages: small }))).toMatchObject({
      messages: small,
      compactedCount: 0,
    });
    // A real space, of another team.
    await expect(
      inRequest(() => service.compact(actor, { spaceId: otherSpace, conversationId: conversation, messages: buildProductResearchTrace() })),
    ).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect(statements).toEqual([]);
    expect(await storedToolUseIds(actor)).toEqual([]);
  });

  it('R-LG-3 refuses a tool name the snapshot columns cannot hold, naming the tool_use, before any write', async () => {
    const { actor, conversation } = await newCaller();
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'x' },
          { type: 'tool_use', id: 'tu_1', name: 'bad name', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'y'.repeat(3000) }] },
    ];
    statements.length = 0;
    await expect(
      inRequest(() => service.compact(actor, { spaceId: space, conversationId: conversation, messages, keepLastN: 0 })),
    ).rejects.toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
      details: { field: 'input.messages.0.content.1.name' },
    });
    // Only the team's compaction policies were read (they decide the candidates).
    expect(statements).toEqual([expect.stringMatching(/^\[query\] select .* from tool_compaction_policies_of\(/)]);
  });

  it("R-LG-3 re-points a write-path error at the client's message", async () => {
    const { actor, conversation } = await newCaller();
    // The message compaction attaches the big result to already exists, in another conversation of the user's.
    const messageId = deterministicMessageId(conversation, BIG_PAYLOAD_TOOL_USE_ID);
    const elsewhere = crypto.randomUUID();
    await em.execute(
      `insert into conversations (team_id, id, user_id, space_id) values (?, ?, ?, ?);
       insert into messages (team_id, id, conversation_id, user_id) values (?, ?, ?, ?);`,
      [team, elsewhere, actor.userId, space, team, messageId, elsewhere, actor.userId],
    );
    const error = await inRequest(() =>
      service.compact(actor, { spaceId: space, conversationId: conversation, messages: buildProductResearchTrace() }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    // The real write path's message names the message, not its field (the in-memory version
    // threw one naming `compaction.0.messageId`), so only the field is re-pointed here.
    expect(error).toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
      message: `Message ${messageId} belongs to another conversation than ${conversation}.`,
      details: { field: 'input.messages.3.id' },
    });
    expect(await storedToolUseIds(actor)).toEqual([]);
  });
});
