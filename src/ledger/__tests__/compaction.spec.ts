import {
  BIG_PAYLOAD_ITEM_3_PRICE,
  BIG_PAYLOAD_TOOL_USE_ID,
  bigPayloadText,
  buildProductResearchTrace,
} from '../../../test/fixtures/agent-trace.fixture';
import { applyCompaction, findCompactionCandidates } from '../compaction';
import type { CompactionOptions, ContentBlock, Message } from '../compaction.types';
import { parseJsonPath } from '../keyed-slice';
import { renderStub } from '../../../test/support/tool-results-service';

const DEFAULTS: CompactionOptions = { sizeThreshold: 2000, keepLastN: 3, excludeTools: [] };

function stubsFor(messages: readonly Message[], options = DEFAULTS): Map<string, string> {
  const candidates = findCompactionCandidates(messages, options);
  return new Map(
    candidates.map((candidate, index) => [
      candidate.toolUseId,
      renderStub({
        memId: `mem_ABCDEFGHIJKLMNO${index}`,
        toolName: candidate.toolName,
        toolCallId: candidate.toolUseId,
        sizeChars: candidate.contentText.length,
        sizeTokens: 1000,
        summaryOneliner: 'fixture summary',
        schemaHint: null,
        headPreview: null,
      }),
    ]),
  );
}

function blockAt(messages: readonly Message[], messageIndex: number, blockIndex: number): ContentBlock {
  const content = messages[messageIndex].content;
  if (typeof content === 'string') throw new Error(`message ${messageIndex} has string content`);
  return content[blockIndex];
}

describe('the agent-trace fixture', () => {
  it('R-LG-3 is deterministic and holds one ~360 KB payload', () => {
    expect(JSON.stringify(buildProductResearchTrace())).toBe(JSON.stringify(buildProductResearchTrace()));
    const text = bigPayloadText();
    expect(text.length).toBeGreaterThanOrEqual(350_000);
    expect(text.length).toBeLessThanOrEqual(370_000);
    const payload = JSON.parse(text) as { items: { price: number }[]; total: number };
    expect(payload.items.length).toBe(payload.total);
    expect(JSON.stringify(payload.items[3].price)).toBe(BIG_PAYLOAD_ITEM_3_PRICE);
    expect(text).toContain(`"price":${BIG_PAYLOAD_ITEM_3_PRICE},`);
    expect(parseJsonPath('items.3.price')).toEqual(['items', '3', 'price']);
  });
});

describe('findCompactionCandidates', () => {
  it('R-LG-3 picks only the big result: small ones, the error and the last three stay', () => {
    const trace = buildProductResearchTrace();
    const candidates = findCompactionCandidates(trace, DEFAULTS);
    expect(candidates).toEqual([
      {
        toolUseId: BIG_PAYLOAD_TOOL_USE_ID,
        toolName: 'search_products',
        toolInput: { category_id: 'pc-mechanical-keyboards', max_price: 200, limit: 320, include: ['price_history'] },
        contentText: bigPayloadText(),
        assistantMessageIndex: 3,
        assistantMessageId: null,
        messageIndex: 4,
        blockIndex: 0,
      },
    ]);
  });

  it('R-LG-3 never picks an error result, and keepLastN is what protects the recent large one', () => {
    const trace = buildProductResearchTrace();
    const all = findCompactionCandidates(trace, { ...DEFAULTS, keepLastN: 0 });
    // The 2.2 KB price history (among the last three) joins; the 3.4 KB error result never does.
    expect(all.map((candidate) => candidate.toolName)).toEqual(['search_products', 'get_price_history']);
    expect(all[1].assistantMessageIndex).toBe(9);
    expect(all.some((candidate) => candidate.toolUseId === 'toolu_01Qr2St3Uv4Wx5Yz6Ab7Cd8Ef9')).toBe(false);
  });

  it('R-LG-3 honours excludeTools', () => {
    const trace = buildProductResearchTrace();
    expect(findCompactionCandidates(trace, { ...DEFAULTS, excludeTools: ['search_products'] })).toEqual([]);
  });

  it('R-LG-3 reads text-block content, falls back to unknown for an orphan result, reports the message id', () => {
    const messages: Message[] = [
      { role: 'assistant', id: 'a1', content: [{ type: 'tool_use', id: 'tu_1', name: 'fetch_page', input: { url: 'x' } }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'tu_1',
            content: [
              { type: 'text', text: 'a'.repeat(30) },
              { type: 'text', text: 'b' },
            ],
          },
          { type: 'tool_result', tool_use_id: 'tu_orphan', content: 'c'.repeat(30) },
          { type: 'tool_result', tool_use_id: 'tu_image', content: [{ type: 'image', source: {} }] },
          { type: 'tool_result', tool_use_id: 'tu_last', content: 'recent' },
        ],
      },
    ];
    const candidates = findCompactionCandidates(messages, { sizeThreshold: 10, keepLastN: 1, excludeTools: [] });
    expect(candidates.map((c) => [c.toolUseId, c.toolName, c.contentText.length, c.assistantMessageId])).toEqual([
      ['tu_1', 'fetch_page', 32, 'a1'],
      ['tu_orphan', 'unknown', 30, null],
    ]);
    expect(candidates[1].toolInput).toEqual({});
    expect(candidates[1].assistantMessageIndex).toBeNull();
  });
});

describe('applyCompaction', () => {
  it('R-LG-3 replaces only the big content, keeping tool_use_id and every other byte', () => {
    const trace = buildProductResearchTrace();
    const compacted = applyCompaction(trace, stubsFor(trace));
    const stub = stubsFor(trace).get(BIG_PAYLOAD_TOOL_USE_ID);
    expect(blockAt(compacted, 4, 0)).toEqual({ type: 'tool_result', tool_use_id: BIG_PAYLOAD_TOOL_USE_ID, content: stub });
    // Restoring the payload gives the original bytes back: nothing else moved.
    const restored = JSON.stringify(compacted).replace(JSON.stringify(stub), JSON.stringify(bigPayloadText()));
    expect(restored).toBe(JSON.stringify(trace));
    trace.forEach((message, index) => {
      if (index !== 4) expect(compacted[index]).toBe(message);
    });
  });

  it('R-LG-3 never mutates its input', () => {
    const trace = buildProductResearchTrace();
    const before = structuredClone(trace);
    applyCompaction(trace, stubsFor(trace));
    expect(trace).toStrictEqual(before);
  });

  it('R-LG-3 gives byte-identical output for the same input, and again on its own output', () => {
    const trace = buildProductResearchTrace();
    const first = JSON.stringify(applyCompaction(trace, stubsFor(trace)));
    const second = JSON.stringify(applyCompaction(buildProductResearchTrace(), stubsFor(buildProductResearchTrace())));
    expect(second).toBe(first);
    const again = JSON.parse(first) as Message[];
    expect(findCompactionCandidates(again, DEFAULTS)).toEqual([]);
    expect(JSON.stringify(applyCompaction(again, stubsFor(trace)))).toBe(first);
  });

  it('R-LG-3 passes unknown blocks and an error result through untouched', () => {
    const trace = buildProductResearchTrace();
    const compacted = applyCompaction(trace, new Map([['toolu_01Qr2St3Uv4Wx5Yz6Ab7Cd8Ef9', 'stub']]));
    expect(blockAt(compacted, 1, 0)).toBe(blockAt(trace, 1, 0));
    expect(blockAt(compacted, 1, 0).type).toBe('thinking');
    expect(JSON.stringify(compacted)).toBe(JSON.stringify(trace));
  });

  it('R-LG-3 shrinks the trace to at most 25% of its size', () => {
    const trace = buildProductResearchTrace();
    const compacted = applyCompaction(trace, stubsFor(trace));
    expect(JSON.stringify(compacted).length).toBeLessThanOrEqual(0.25 * JSON.stringify(trace).length);
  });
});
