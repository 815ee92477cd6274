import type { AppConfig } from '../../../config/app-config';
import { ActorContext } from '../../../tenancy/actor-context';
import { Scope } from '../../../tenancy/scopes';
import type { SnapshotRecord } from '../../../tool-results/snapshot-record';
import type { ToolResultRepository } from '../../../tool-results/tool-result.repository';
import { LedgerService } from '../../ledger.service';
import type { PathValue } from '../json-path-value';
import type { RecallArguments } from '../recall-request';

const MEM = 'mem_abcdefghijklmnop';
const actor = new ActorContext('u1', 't1', [Scope.MEMORY_READ], []);
const TEXT = `${'0123456789'.repeat(10)}needle${'x'.repeat(100)}`;

class FakeRepository {
  calls = 0;
  path: { value: PathValue | null } | null = null;

  async findByMemId(userId: string, memId: string): Promise<SnapshotRecord | null> {
    this.calls++;
    if (userId !== 'u1' || memId !== MEM) return null;
    return { id: 'id', memId, spaceId: 's', conversationId: 'c', messageId: 'm', toolUseId: 'tu', toolName: 'fetch', toolInput: {}, toolOutput: TEXT, sizeChars: TEXT.length, createdAt: new Date(0), createdKey: '' };
  }

  async findJsonPathValue(): Promise<{ value: PathValue | null } | null> {
    this.calls++;
    return this.path;
  }
}

function setup(ceiling: number) {
  const repository = new FakeRepository();
  const config = { recall: { maxReturnChars: ceiling } } as AppConfig;
  const service = new LedgerService(repository as unknown as ToolResultRepository, config);
  const recall = (args: Partial<RecallArguments>) =>
    service.recall(actor, { memId: MEM, format: null, query: null, offset: null, maxChars: null, jsonPath: null, ...args });
  return { repository, recall };
}

describe('LedgerService', () => {
  it('R-LG-2 answers bad arguments and malformed mem ids without touching the database', async () => {
    const { repository, recall } = setup(1000);
    expect(await recall({ offset: -1 })).toMatch(/^\[tool_memory bad range/);
    expect(await recall({ memId: 'nope', format: 'FULL' })).toBe('[tool_memory not found: nope]');
    expect(repository.calls).toBe(0);
  });

  it('R-LG-2 holds every answer to the ceiling, with a marker saying how to go on', async () => {
    const { recall } = setup(50);
    expect(await recall({ format: 'FULL' })).toBe(
      `${TEXT.slice(0, 50)}\n[… ${TEXT.length - 50} more chars cut at the 50-char limit; fetch the rest with recall_tool_result(mem_id='${MEM}', offset=50, max_chars=50)]`,
    );
    expect(await recall({ offset: 10, maxChars: 500 })).toBe(`${TEXT.slice(10, 60)}\n[… ${TEXT.length - 60} more chars; continue with offset=60]`);
    expect(await recall({ query: 'NEEDLE' })).toMatch(/^\[match 1 of 1 at offset 100\]\n.{21}\n\[… cut at the 50-char limit; narrow the query\]$/su);
  });

  it('R-LG-2 answers a json_path from what the database hands over', async () => {
    const { repository, recall } = setup(1000);
    expect(await recall({ jsonPath: 'a.b' })).toBe(`[tool_memory not found: ${MEM}]`);
    repository.path = { value: null };
    expect(await recall({ jsonPath: 'a.b' })).toBe(`[tool_memory not found: json_path "a.b" in ${MEM}]`);
    repository.path = { value: { kind: 'array', body: '[1, 2]', bodyLength: 6 } };
    expect(await recall({ jsonPath: 'a.b' })).toBe('[1,2]');
  });

  it("R-LG-2 another user's mem id reads exactly as a missing one", async () => {
    const { recall } = setup(1000);
    expect(await recall({ format: 'FULL' })).toBe(TEXT);
    const other = new LedgerService(new FakeRepository() as unknown as ToolResultRepository, { recall: { maxReturnChars: 1000 } } as AppConfig);
    const stranger = new ActorContext('u2', 't1', [Scope.MEMORY_READ], []);
    const args: RecallArguments = { memId: MEM, format: 'FULL', query: null, offset: null, maxChars: null, jsonPath: null };
    expect(await other.recall(stranger, args)).toBe(`[tool_memory not found: ${MEM}]`);
  });
});
