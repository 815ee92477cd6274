import {
  BIG_PAYLOAD_ITEM_3_PRICE,
  BIG_PAYLOAD_TOOL_USE_ID,
  bigPayloadText,
  buildProductResearchTrace,
} from '../../../test/fixtures/agent-trace.fixture';
import { type AnthropicMessage } from '../../../test/fixtures/agent-trace.fixture';
import { compactPure, PURE_DEFAULTS as DEFAULTS } from '../../../test/support/compact-pure';
import { MessageFormat } from '../history/history.types';
import { replacementsNeeded } from '../compaction';
import type { CompactionOptions } from '../compaction.types';

function blockAt(messages: readonly object[], messageIndex: number, blockIndex: number): Record<string, unknown> {
  const content = (messages[messageIndex] as AnthropicMessage).content;
  if (typeof content === 'string') throw new Error(`message ${messageIndex} has string content`);
  return content[blockIndex];
}

function candidatesOf(messages: unknown, options = DEFAULTS) {
  return compactPure(messages, MessageFormat.ANTHROPIC, options).candidates;
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
  });
});

describe('findCompactionCandidates', () => {
  it('R-LG-3 picks only the big result: small ones, the error and the last three stay', () => {
    const trace = buildProductResearchTrace();
    const candidates = candidatesOf(trace);
    expect(candidates).toHaveLength(1);
    expect(candidates[0]).toMatchObject({
      toolUseId: BIG_PAYLOAD_TOOL_USE_ID,
      toolName: 'search_products',
      toolInput: { category_id: 'pc-mechanical-keyboards', max_price: 200, limit: 320, include: ['price_history'] },
      payload: bigPayloadText(),
      assistantMessageId: null,
    });
    expect(candidates[0].site).toMatchObject({
      entryIndex: 4,
      partIndex: 0,
      idPath: 'messages.4.content.0.tool_use_id',
      outputPath: 'messages.4.content.0.content',
    });
    expect(candidates[0].site.call).toMatchObject({
      entryIndex: 3,
      namePath: 'messages.3.content.1.name',
      inputPath: 'messages.3.content.1.input',
    });
  });

  it('R-LG-3 never picks an error result, and keepLastN is what protects the recent large one', () => {
    const trace = buildProductResearchTrace();
    const all = candidatesOf(trace, { ...DEFAULTS, keepLastN: 0 });
    // The 2.2 KB price history (among the last three) joins; the 3.4 KB error result never does.
    expect(all.map((candidate) => candidate.toolName)).toEqual(['search_products', 'get_price_history']);
    expect(all[1].site.call?.entryIndex).toBe(9);
    expect(all.some((candidate) => candidate.toolUseId === 'toolu_01Qr2St3Uv4Wx5Yz6Ab7Cd8Ef9')).toBe(false);
  });

  it('R-LG-3 honours excludeTools', () => {
    const trace = buildProductResearchTrace();
    expect(candidatesOf(trace, { ...DEFAULTS, excludeTools: ['search_products'] })).toEqual([]);
  });

  it('R-LG-3 reads text-block content, passes over an image result, reports the message id', () => {
    const messages: AnthropicMessage[] = [
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
          { type: 'tool_result', tool_use_id: 'tu_image', content: [{ type: 'image', source: {} }] },
          { type: 'tool_result', tool_use_id: 'tu_last', content: 'recent' },
        ],
      },
    ];
    messages[0].content = [
      ...(messages[0].content as Record<string, unknown>[]),
      { type: 'tool_use', id: 'tu_image', name: 'screenshot' },
      { type: 'tool_use', id: 'tu_last', name: 'fetch_page', input: {} },
    ];
    const candidates = candidatesOf(messages, { sizeThreshold: 10, keepLastN: 1, excludeTools: [] });
    expect(candidates.map((c) => [c.toolUseId, c.toolName, c.assistantMessageId])).toEqual([['tu_1', 'fetch_page', 'a1']]);
    expect(candidates[0].payload).toBe(`${'a'.repeat(30)}\nb`);
  });

  it('R-LG-3 refuses a tool_result that answers no tool_use, naming where it is', () => {
    const messages = [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_orphan', content: 'c'.repeat(3000) }] }];
    expect(() => candidatesOf(messages)).toThrow(/^messages\.0\.content\.0\.tool_use_id "tu_orphan" answers no tool_use in the list/);
  });
});

describe('writing stubs back', () => {
  it('R-LG-3 replaces only the big content, keeping tool_use_id and every other byte', () => {
    const trace = buildProductResearchTrace();
    const { messages: compacted, stubs } = compactPure(trace);
    const stub = stubs.get(BIG_PAYLOAD_TOOL_USE_ID);
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
    compactPure(trace);
    expect(trace).toStrictEqual(before);
  });

  it('R-LG-3 gives byte-identical output for the same input, and again on its own output', () => {
    const first = JSON.stringify(compactPure(buildProductResearchTrace()).messages);
    const second = JSON.stringify(compactPure(buildProductResearchTrace()).messages);
    expect(second).toBe(first);
    const again = compactPure(JSON.parse(first));
    expect(again.candidates).toEqual([]);
    expect(JSON.stringify(again.messages)).toBe(first);
  });

  it('R-LG-3 passes unknown blocks and an error result through untouched', () => {
    const trace = buildProductResearchTrace();
    const { messages: compacted } = compactPure(trace, MessageFormat.ANTHROPIC, { ...DEFAULTS, keepLastN: 0, sizeThreshold: 1 });
    expect(blockAt(compacted, 1, 0)).toBe(blockAt(trace, 1, 0));
    expect(blockAt(compacted, 1, 0).type).toBe('thinking');
    expect(compacted[6]).toBe(trace[6]);
    expect(blockAt(compacted, 6, 0).is_error).toBe(true);
  });

  it('R-LG-3 shrinks the trace to at most 25% of its size', () => {
    const trace = buildProductResearchTrace();
    const { messages: compacted } = compactPure(trace);
    expect(JSON.stringify(compacted).length).toBeLessThanOrEqual(0.25 * JSON.stringify(trace).length);
  });
});

describe('replacementsNeeded', () => {
  it('R-LG-3 takes the fewest oldest replacements that reach the target, all when it cannot be reached', () => {
    const savings = [100, 50, 200, 10];
    expect(replacementsNeeded(1000, savings, 900, 0)).toBe(1);
    expect(replacementsNeeded(1000, savings, 899, 0)).toBe(2);
    expect(replacementsNeeded(1000, savings, 850, 0)).toBe(2);
    expect(replacementsNeeded(1000, savings, 650, 0)).toBe(3);
    expect(replacementsNeeded(1000, savings, 0, 0)).toBe(4);
    expect(replacementsNeeded(1000, savings, null, 0)).toBe(4);
    expect(replacementsNeeded(1000, [], 10, 0)).toBe(0);
  });

  it('R-LG-3 goes on past the target until the saving reaches clearAtLeastTokens, and makes none when all save less', () => {
    const savings = [100, 50, 200, 10];
    expect(replacementsNeeded(1000, savings, 900, 300)).toBe(3);
    expect(replacementsNeeded(1000, savings, 900, 360)).toBe(4);
    expect(replacementsNeeded(1000, savings, 900, 361)).toBe(0);
    expect(replacementsNeeded(1000, savings, null, 361)).toBe(0);
  });
});

describe('per-tool settings (R-LG-4)', () => {
  /** Four read_file results and two grep results, each 3,000 chars, alternating at the end. */
  function trace(): AnthropicMessage[] {
    const names = ['read_file', 'read_file', 'grep', 'read_file', 'grep', 'read_file'];
    return names.flatMap((name, index): AnthropicMessage[] => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `tu_${index}`, name, input: { n: index } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${index}`, content: `${index}`.repeat(3000) }] },
    ]);
  }
  const ids = (options: CompactionOptions) => candidatesOf(trace(), options).map((c) => c.toolUseId);

  it('R-LG-4 never compact, its own threshold, its own last N counted among its own results', () => {
    expect(ids(DEFAULTS)).toEqual(['tu_0', 'tu_1', 'tu_2']);
    expect(ids({ ...DEFAULTS, toolSettings: new Map([['read_file', { exclude: true }]]) })).toEqual(['tu_2']);
    expect(ids({ ...DEFAULTS, toolSettings: new Map([['grep', { sizeThreshold: 5000 }]]) })).toEqual(['tu_0', 'tu_1']);
    // read_file keeps its own last one: tu_0, tu_1 and tu_3 go; grep keeps the list's last three.
    expect(ids({ ...DEFAULTS, toolSettings: new Map([['read_file', { keepLastN: 1 }]]) })).toEqual(['tu_0', 'tu_1', 'tu_2', 'tu_3']);
  });
});
