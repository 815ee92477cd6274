import { AppError, BadUserInputError, ErrorCode } from '../../../common/errors/app-error';
import { ActorContext } from '../../../tenancy/actor-context';
import { Scope } from '../../../tenancy/scopes';
import type { SnapshotRecord } from '../../../tool-results/snapshot-record';
import type { RecordOutcome, ToolResultsService, ToolResultToRecord } from '../../../tool-results/tool-results.service';
import { CompactionService } from '../../compaction.service';
import { BIG_PAYLOAD_TOOL_USE_ID, buildProductResearchTrace } from '../../../../test/fixtures/agent-trace.fixture';
import type { Message } from '../compaction.types';

const SPACE = '0b6f2a4e-3c1d-4e8f-9a7b-2c5d6e7f8a9b';
const CONVERSATION = 'c0ffee00-3c1d-4e8f-9a7b-2c5d6e7f8a9b';
const actor = new ActorContext('u1', 't1', [Scope.MEMORY_WRITE], [{ id: SPACE, generation: 1 }]);

/** The write path's contract in memory: idempotent on toolUseId, originals returned for duplicates. */
class FakeToolResults {
  readonly batches: ToolResultToRecord[][] = [];
  private readonly stored = new Map<string, SnapshotRecord>();
  failWith: Error | null = null;

  async record(_actor: ActorContext, items: readonly ToolResultToRecord[]): Promise<RecordOutcome> {
    if (this.failWith) throw this.failWith;
    this.batches.push([...items]);
    let createdCount = 0;
    const snapshots = items.map((item) => {
      let snapshot = this.stored.get(item.toolUseId);
      if (!snapshot) {
        createdCount++;
        const memId = `mem_${String(this.stored.size).padStart(16, 'a')}`;
        snapshot = { ...item, id: memId, memId, sizeChars: String(item.toolOutput).length, createdAt: new Date(0), createdKey: '' };
        this.stored.set(item.toolUseId, snapshot);
      }
      return snapshot;
    });
    return { snapshots, createdCount, duplicateCount: items.length - createdCount };
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function setup() {
  const toolResults = new FakeToolResults();
  return { toolResults, service: new CompactionService(toolResults as unknown as ToolResultsService) };
}

describe('CompactionService', () => {
  it('R-LG-3 never mutates its input and gives byte-identical output on every call', async () => {
    const { service } = setup();
    const trace = deepFreeze(buildProductResearchTrace());
    const copy = structuredClone(trace);
    const first = await service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages: trace });
    const second = await service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages: trace });
    expect(trace).toStrictEqual(copy);
    expect(first.compactedCount).toBe(1);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });

  it('R-LG-3 records in batches of at most 100 and replaces every candidate', async () => {
    const { service, toolResults } = setup();
    const messages: Message[] = [];
    for (let i = 0; i < 250; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `tu_${i}`, name: 'fetch', input: { i } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: `${i} `.repeat(100) }] });
    }
    const out = await service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages, sizeThreshold: 100, keepLastN: 0 });
    expect(toolResults.batches.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(out.compactedCount).toBe(250);
    expect(out.handles.map((h) => h.toolCallId)).toEqual(messages.filter((_, i) => i % 2 === 0).map((_, i) => `tu_${i}`));
  });

  it('R-LG-3 under clearAtLeastTokens it records, yet returns the very input and replaces nothing', async () => {
    const { service, toolResults } = setup();
    const trace = buildProductResearchTrace();
    const out = await service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages: trace, clearAtLeastTokens: 10_000_000 });
    expect(toolResults.batches.map((b) => b.map((i) => i.toolUseId))).toEqual([[BIG_PAYLOAD_TOOL_USE_ID]]);
    expect(out.messages).toBe(trace);
    expect(out).toMatchObject({ compactedCount: 0, handles: [], charsAfter: out.charsBefore, tokensAfter: out.tokensBefore });
  });

  it('R-LG-3 R-TN-5 writes nothing without candidates, and refuses a space the actor may not use', async () => {
    const { service, toolResults } = setup();
    const small: Message[] = [{ role: 'user', content: 'hello' }];
    expect(await service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages: small })).toMatchObject({ messages: small, compactedCount: 0 });
    const other = '11111111-3c1d-4e8f-9a7b-2c5d6e7f8a9b';
    await expect(service.compact(actor, { spaceId: other, conversationId: CONVERSATION, messages: buildProductResearchTrace() })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect(toolResults.batches).toEqual([]);
  });

  it('R-LG-3 refuses a tool name the snapshot columns cannot hold, naming the tool_use, before any write', async () => {
    const { service, toolResults } = setup();
    const messages: Message[] = [
      { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id: 'tu_1', name: 'bad name', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'y'.repeat(3000) }] },
    ];
    await expect(service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages, keepLastN: 0 })).rejects.toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
      details: { field: 'input.messages.0.content.1.name' },
    });
    expect(toolResults.batches).toEqual([]);
  });

  it("R-LG-3 re-points a write-path error at the client's message", async () => {
    const { service, toolResults } = setup();
    toolResults.failWith = new BadUserInputError('compaction.0.messageId', 'compaction.0.messageId belongs to another conversation.');
    const error = await service.compact(actor, { spaceId: SPACE, conversationId: CONVERSATION, messages: buildProductResearchTrace() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ message: 'input.messages.3.id belongs to another conversation.', details: { field: 'input.messages.3.id' } });
  });
});
