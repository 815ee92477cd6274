import { o200kTokenizer } from '../../../src/common/text/tokenizer';
import { deterministicMessageId } from '../../../src/compaction/compaction';
import { notFoundText } from '../../../src/lookup/keyed-slice';
import { STUB_MARKER } from '../../../src/tool-results/handle/stub';
import {
  BIG_PAYLOAD_ITEM_3_PRICE,
  BIG_PAYLOAD_TOOL_USE_ID,
  bigPayloadText,
  buildProductResearchTrace,
  type AnthropicMessage as Message,
} from '../../fixtures/agent-trace.fixture';
import { memberOfNewSpace, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Handle {
  memId: string;
  toolName: string;
  toolCallId: string;
  sizeChars: number;
  sizeTokens: number;
  summaryOneliner: string;
  schemaHint: string | null;
  headPreview: string | null;
  stub: string;
}
interface Compacted {
  messages: Message[];
  compactedCount: number;
  charsBefore: number;
  charsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  handles: Handle[];
}

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) {
    messages compactedCount charsBefore charsAfter tokensBefore tokensAfter
    handles { memId toolName toolCallId sizeChars sizeTokens summaryOneliner schemaHint headPreview stub }
  }
}`;
const RECALL = `query($m: String!, $f: RecallFormat, $q: String, $o: Int, $n: Int, $p: String, $t: Int) {
  recallToolResult(memId: $m, format: $f, query: $q, offset: $o, maxChars: $n, jsonPath: $p, maxTokens: $t)
}`;
/** Every recall answer but the stub is bounded by this many tokens (LOOKUP_ANSWER_MAX_TOKENS' default), marker included. */
const ANSWER_MAX_TOKENS = 8_000;
/** The last line of a cut answer: the exact call that reads on, and which chars were shown. */
const CONTINUE_MARKER =
  /\n\[… more: continue with recall_tool_result\(mem_id='(mem_[a-z2-7]{16})'[^\n]*, offset=(\d+)[^\n]*\); chars (\d+)–(\d+) of (≈?\d+) shown\]$/;

interface RecallArgs {
  f?: 'SUMMARY' | 'FULL';
  q?: string;
  o?: number;
  n?: number;
  p?: string;
  t?: number;
}

function blockAt(messages: readonly Message[], messageIndex: number, blockIndex: number): Record<string, unknown> {
  const content = messages[messageIndex].content;
  if (typeof content === 'string') throw new Error(`message ${messageIndex} has string content`);
  return content[blockIndex];
}

describe('Lookup and compaction (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let bob: SpaceMember;
  const conversationId = crypto.randomUUID();
  let first: Compacted;
  let bigMemId: string;

  const compact = (who: SpaceMember, input: Record<string, unknown>) =>
    gql<{ compactMessages: Compacted }>(t, COMPACT, { input }, who.token);
  const recall = async (who: SpaceMember, memId: string, args: RecallArgs = {}): Promise<string> => {
    return (await ok<{ recallToolResult: string }>(t, RECALL, { m: memId, ...args }, who.token)).recallToolResult;
  };
  const rowsOf = async (userId: string) =>
    Number((await t.sql.query('select count(*) from message_tool_results where user_id = $1', [userId])).rows[0].count);

  beforeAll(async () => {
    // A character ceiling below the 360 KB payload; the 8,000-token bound still cuts each answer first.
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb', LOOKUP_MAX_RETURN_CHARS: '100000' });
    alice = await memberOfNewSpace(t);
    bob = await memberOfNewSpace(t);
    const res = await compact(alice, { spaceId: alice.spaceId, conversationId, messages: buildProductResearchTrace() });
    expect(res.errors).toBeUndefined();
    first = res.data!.compactMessages;
    bigMemId = first.handles[0].memId;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('compactMessages', () => {
    it('R-LG-3 replaces the big result by its stub and leaves everything else, the last keepLastN results included, as it was', () => {
      const trace = buildProductResearchTrace();
      expect(first.compactedCount).toBe(1);
      expect(first.handles).toHaveLength(1);
      expect(first.handles[0]).toMatchObject({
        toolName: 'search_products',
        toolCallId: BIG_PAYLOAD_TOOL_USE_ID,
        sizeChars: bigPayloadText().length,
        sizeTokens: o200kTokenizer.count(bigPayloadText()),
      });
      expect(first.handles[0].memId).toMatch(/^mem_[a-z2-7]{16}$/);
      expect(first.handles[0].stub.startsWith(STUB_MARKER)).toBe(true);
      expect(blockAt(first.messages, 4, 0)).toEqual({
        type: 'tool_result',
        tool_use_id: BIG_PAYLOAD_TOOL_USE_ID,
        content: first.handles[0].stub,
      });
      // Everything but that one content is the input, byte for byte.
      const restored = JSON.stringify(first.messages).replace(JSON.stringify(first.handles[0].stub), JSON.stringify(bigPayloadText()));
      expect(restored).toBe(JSON.stringify(trace));
      // The last three tool results (2.2 KB history among them), byte for byte.
      for (const index of [10, 12]) expect(JSON.stringify(first.messages[index])).toBe(JSON.stringify(trace[index]));
    });

    it('R-LG-3 compacting the trace twice gives byte-identical JSON and records the result once', async () => {
      const again = await compact(alice, { spaceId: alice.spaceId, conversationId, messages: buildProductResearchTrace() });
      expect(JSON.stringify(again.data!.compactMessages)).toBe(JSON.stringify(first));
      const rows = await t.sql.query('select message_id from message_tool_results where user_id = $1 and tool_use_id = $2', [
        alice.userId,
        BIG_PAYLOAD_TOOL_USE_ID,
      ]);
      expect(rows.rows).toEqual([{ message_id: deterministicMessageId(conversationId, BIG_PAYLOAD_TOOL_USE_ID) }]);
    });

    it('R-LG-3 reports chars and o200k tokens before and after, tokensAfter at least 75% below tokensBefore', () => {
      const trace = buildProductResearchTrace();
      expect(first.charsBefore).toBe(JSON.stringify(trace).length);
      expect(first.charsAfter).toBe(JSON.stringify(first.messages).length);
      expect(first.tokensBefore).toBe(o200kTokenizer.count(JSON.stringify(trace)));
      expect(first.tokensAfter).toBe(o200kTokenizer.count(JSON.stringify(first.messages)));
      expect(first.tokensAfter).toBeLessThanOrEqual(0.25 * first.tokensBefore);
    });

    it('R-LG-3 never compacts is_error results or excluded tools; a client UUID message id is kept', async () => {
      const trace = buildProductResearchTrace();
      const conversation = crypto.randomUUID();
      const input = {
        spaceId: alice.spaceId,
        conversationId: conversation,
        messages: trace,
        sizeThreshold: 100,
        keepLastN: 0,
        excludeTools: ['get_product_details'],
      };
      const res = await compact(alice, input);
      expect(res.errors).toBeUndefined();
      const out = res.data!.compactMessages;
      expect(out.handles.map((h) => h.toolName)).toEqual(['search_categories', 'search_products', 'get_price_history']);
      for (const [m, b] of [
        [2, 0],
        [4, 0],
        [10, 0],
      ])
        expect(String(blockAt(out.messages, m, b).content).startsWith(STUB_MARKER)).toBe(true);
      // The error result, both product-details results and the short review summary stay as they were.
      for (const [m, b] of [
        [6, 0],
        [8, 0],
        [12, 0],
        [12, 1],
      ])
        expect(blockAt(out.messages, m, b)).toEqual(blockAt(trace, m, b));
      expect(blockAt(out.messages, 6, 0).is_error).toBe(true);
      const categories = await t.sql.query(
        'select message_id from message_tool_results where user_id = $1 and conversation_id = $2 and tool_name = $3',
        [alice.userId, conversation, 'search_categories'],
      );
      expect(categories.rows).toEqual([{ message_id: '3f0c9a52-6d1e-4b7a-9c2f-1a8e5d7b4c60' }]);
    });

    it('R-LG-3 replaces nothing when the saving is under clearAtLeastTokens, and compacts at exactly the saving', async () => {
      const saving = first.tokensBefore - first.tokensAfter;
      const trace = buildProductResearchTrace();
      const skipped = (await compact(alice, { spaceId: alice.spaceId, conversationId, messages: trace, clearAtLeastTokens: saving + 1 }))
        .data!.compactMessages;
      expect(JSON.stringify(skipped.messages)).toBe(JSON.stringify(trace));
      expect(skipped).toMatchObject({
        compactedCount: 0,
        handles: [],
        tokensAfter: first.tokensBefore,
        tokensBefore: first.tokensBefore,
        charsAfter: first.charsBefore,
      });
      const exact = (await compact(alice, { spaceId: alice.spaceId, conversationId, messages: trace, clearAtLeastTokens: saving })).data!
        .compactMessages;
      expect(JSON.stringify(exact)).toBe(JSON.stringify(first));
    });

    it("R-LG-3 R-TN-9 another team's conversation id is the team's own: compaction writes that team's rows and leaves the first team's alone", async () => {
      const outsider = await memberOfNewSpace(t);
      const alices = async () =>
        (await t.sql.query('select id, compacted from message_tool_results where team_id = $1 order by id', [alice.teamId])).rows;
      const before = await alices();
      const res = await compact(outsider, { spaceId: outsider.spaceId, conversationId, messages: buildProductResearchTrace() });
      expect(res.errors).toBeUndefined();
      expect(await rowsOf(outsider.userId)).toBeGreaterThan(0);
      const owners = await t.sql.query('select distinct team_id from conversations where id = $1 order by team_id', [conversationId]);
      expect(owners.rows.map((r) => r.team_id)).toEqual([alice.teamId, outsider.teamId].sort());
      expect(await alices()).toEqual(before);
    });

    it('R-LG-3 R-OP-4 a malformed message list or out-of-range option is BAD_USER_INPUT naming the field, before any write', async () => {
      const trace: unknown[] = buildProductResearchTrace();
      const broken = [
        ...trace.slice(0, 3),
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'tool_result', tool_use_id: 5 },
          ],
        },
      ];
      const cases: [Record<string, unknown>, string][] = [
        [{ messages: broken }, 'input.messages.3.content.1.tool_use_id'],
        [{ messages: { role: 'user' } }, 'input.messages'],
        [{ messages: trace, sizeThreshold: 0 }, 'input.sizeThreshold'],
        [{ messages: trace, keepLastN: -1 }, 'input.keepLastN'],
        [{ messages: trace, clearAtLeastTokens: -1 }, 'input.clearAtLeastTokens'],
        [{ messages: trace, excludeTools: Array.from({ length: 101 }, (_, i) => `tool_${i}`) }, 'input.excludeTools'],
        [{ messages: trace, conversationId: 'not-a-uuid' }, 'input.conversationId'],
      ];
      for (const [override, field] of cases) {
        const res = await compact(bob, { spaceId: bob.spaceId, conversationId: crypto.randomUUID(), ...override });
        expect({ field, error: res.errors?.[0].extensions }).toEqual({ field, error: { code: 'BAD_USER_INPUT', field } });
      }
      expect(await rowsOf(bob.userId)).toBe(0);
    });

    it('R-TN-2 compactMessages needs memory:write and recallToolResult memory:read', async () => {
      const reader = await memberOfNewSpace(t, ['memory:read']);
      const writer = await memberOfNewSpace(t, ['memory:write']);
      const denied = await compact(reader, { spaceId: reader.spaceId, conversationId: crypto.randomUUID(), messages: [] });
      expectErrorCode(denied, 'FORBIDDEN');
      const res = await gql(t, RECALL, { m: bigMemId }, writer.token);
      expectErrorCode(res, 'FORBIDDEN');
    });
  });

  describe('recallToolResult', () => {
    const text = bigPayloadText();

    it('R-LG-2 jsonPath items.3.price returns that value, evaluated in PostgreSQL', async () => {
      expect(await recall(alice, bigMemId, { p: 'items.3.price' })).toBe(BIG_PAYLOAD_ITEM_3_PRICE);
      const payload = JSON.parse(text) as { items: { product_id: string; price_history: unknown[] }[]; marketplace: string };
      expect(await recall(alice, bigMemId, { p: 'marketplace' })).toBe(payload.marketplace);
      expect(JSON.parse(await recall(alice, bigMemId, { p: 'items.3.price_history.0' }))).toEqual(payload.items[3].price_history[0]);
    });

    it('R-LG-2 a path that does not exist, or a malformed one, is answered with bracketed text', async () => {
      expect(await recall(alice, bigMemId, { p: 'items.999.price' })).toBe(
        `[tool_memory not found: json_path "items.999.price" in ${bigMemId}]`,
      );
      expect(await recall(alice, bigMemId, { p: 'items..3' })).toBe(
        '[tool_memory bad json_path: "items..3": not a dotted path (keys and array indexes joined by dots); write RFC 9535 JSONPath such as $.items[0].price, $.items[*].sku, $..price or $.items[?(@.price < 10)], or a dotted path such as items.0.price]',
      );
    });

    it('R-LG-2 query finds a known substring, case-insensitively, with ±200 chars of context and its offset', async () => {
      const productId = (JSON.parse(text) as { items: { product_id: string }[] }).items[3].product_id;
      const offset = text.indexOf(productId);
      expect(text.indexOf(productId, offset + 1)).toBe(-1);
      const answer = await recall(alice, bigMemId, { q: productId.toLowerCase() });
      expect(answer).toBe(`[match 1 of 1 at offset ${offset}]\n…${text.slice(offset - 200, offset + productId.length + 200)}…`);
    });

    it('R-LG-2 offset 1000, maxChars 500 returns exactly those chars, then the exact call that reads on', async () => {
      const answer = await recall(alice, bigMemId, { o: 1000, n: 500 });
      expect(answer).toBe(
        `${text.slice(1000, 1500)}\n[… more: continue with recall_tool_result(mem_id='${bigMemId}', offset=1500, max_chars=500); chars 1000–1500 of ${text.length} shown]`,
      );
      const tail = await recall(alice, bigMemId, { o: text.length - 10, n: 500 });
      expect(tail).toBe(text.slice(-10));
    });

    it('R-LG-2 FULL is cut at the 8,000-token bound (under the 100,000-char ceiling), and following the markers gives back the stored payload', async () => {
      const stored = (await t.sql.query(`select tool_output #>> '{}' as text from message_tool_results where mem_id = $1`, [bigMemId]))
        .rows[0].text as string;
      expect(stored).toBe(text);
      let answer = await recall(alice, bigMemId, { f: 'FULL' });
      const firstEnd = Number(CONTINUE_MARKER.exec(answer)?.[4]);
      expect(firstEnd).toBeGreaterThan(0);
      expect(answer).toBe(
        `${text.slice(0, firstEnd)}\n[… more: continue with recall_tool_result(mem_id='${bigMemId}', offset=${firstEnd}); chars 0–${firstEnd} of ${text.length} shown]`,
      );
      let rebuilt = '';
      let calls = 1;
      for (;;) {
        expect(o200kTokenizer.count(answer)).toBeLessThanOrEqual(ANSWER_MAX_TOKENS);
        const marker = CONTINUE_MARKER.exec(answer);
        const window = marker ? answer.slice(0, marker.index) : answer;
        expect(window.length).toBeLessThanOrEqual(100_000);
        if (marker) {
          expect([marker[1], Number(marker[3]), Number(marker[4]), marker[5]]).toEqual([
            bigMemId,
            rebuilt.length,
            rebuilt.length + window.length,
            String(text.length),
          ]);
        }
        rebuilt += window;
        if (!marker) break;
        expect(calls).toBeLessThan(100);
        answer = await recall(alice, bigMemId, { o: Number(marker[2]) });
        calls += 1;
      }
      expect(rebuilt === stored).toBe(true);
      const tokens = o200kTokenizer.count(stored);
      expect(calls).toBeGreaterThanOrEqual(Math.ceil(tokens / ANSWER_MAX_TOKENS) - 1);
      expect(calls).toBeLessThanOrEqual(Math.ceil(tokens / ANSWER_MAX_TOKENS) + 1);
    });

    it('R-LG-2 SUMMARY (the default) is the stub compaction put on the wire', async () => {
      expect(await recall(alice, bigMemId)).toBe(first.handles[0].stub);
      expect(await recall(alice, bigMemId, { f: 'SUMMARY' })).toBe(first.handles[0].stub);
      // Over the answer bound: a v3 stub stating tokens and leading with the keyed ways.
      const lines = first.handles[0].stub.split('\n');
      expect(lines[0]).toBe('[recall-ledger tool_memory v3]');
      expect(lines).toContain(`size_original=${text.length} chars, ${first.handles[0].sizeTokens} tokens`);
      expect(lines.at(-1)).toBe(
        `re-expand by key: recall_tool_result(mem_id='${bigMemId}', json_path=<$.a[0].b> | query=<text> | offset=<n>); format="full" pages ${ANSWER_MAX_TOKENS} tokens from offset=0`,
      );
    });

    it('R-LG-2 bad arguments are bracketed text, never a GraphQL error', async () => {
      expect(await recall(alice, bigMemId, { o: -1, n: 10 })).toBe(
        '[tool_memory bad range: offset must be a non-negative integer, got -1]',
      );
      expect(await recall(alice, bigMemId, { o: 0, n: 0 })).toBe('[tool_memory bad range: max_chars must be a positive integer, got 0]');
      expect(await recall(alice, bigMemId, { o: text.length, n: 5 })).toBe(
        `[tool_memory bad range: offset ${text.length} is past the end (length ${text.length})]`,
      );
      expect(await recall(alice, bigMemId, { o: text.length })).toBe(
        `[tool_memory bad range: offset ${text.length} is past the end (length ${text.length})]`,
      );
      expect(await recall(alice, bigMemId, { q: 'price', p: 'items.3' })).toBe(
        '[tool_memory bad arguments: give one of query or json_path, not both]',
      );
      expect(await recall(alice, bigMemId, { q: 'price', p: 'items.3', o: 10, n: 10, t: 500 })).toBe(
        '[tool_memory bad arguments: give one of query or json_path, not both]',
      );
      expect(await recall(alice, bigMemId, { f: 'FULL', t: 99 })).toBe(
        '[tool_memory bad max_tokens: must be an integer of at least 100, got 99]',
      );
      expect(await recall(alice, bigMemId, { p: 'items.3', t: 0 })).toBe(
        '[tool_memory bad max_tokens: must be an integer of at least 100, got 0]',
      );
      expect(await recall(alice, 'not a mem id')).toBe('[tool_memory not found: not a mem id]');
    });

    it("R-LG-2 R-TN-5 user B gets for A's mem id exactly the text a made-up mem id gets, in every mode", async () => {
      const madeUp = 'mem_aaaaaaaaaaaaaaaa';
      const modes: RecallArgs[] = [
        {},
        { f: 'FULL' },
        { f: 'FULL', t: 500 },
        { q: 'price' },
        { q: 'price', o: 10, n: 100 },
        { o: 1000, n: 500 },
        { p: 'items.3.price' },
        { p: 'items', o: 100, n: 1000, t: 300 },
      ];
      for (const args of modes) {
        expect(await recall(bob, bigMemId, args)).toBe(notFoundText(bigMemId));
        expect(await recall(alice, madeUp, args)).toBe(notFoundText(madeUp));
      }
    });
  });

  describe('recallToolResult with the default ceiling and a token bound above the payload', () => {
    let roomy: TestApp;
    afterAll(async () => {
      await roomy?.close();
    });

    it('R-LG-2 FULL equals the stored payload, no marker; maxChars 100,000 is then the bound that cuts', async () => {
      // LOOKUP_ANSWER_MAX_TOKENS above the payload's tokens, LOOKUP_MAX_RETURN_CHARS at its 500,000 default.
      roomy = await createTestApp({ HTTP_BODY_LIMIT: '10mb', LOOKUP_ANSWER_MAX_TOKENS: '1000000' });
      const carol = await memberOfNewSpace(roomy);
      const res = await gql<{ compactMessages: Compacted }>(
        roomy,
        COMPACT,
        { input: { spaceId: carol.spaceId, conversationId: crypto.randomUUID(), messages: buildProductResearchTrace() } },
        carol.token,
      );
      const handle = res.data!.compactMessages.handles[0];
      const memId = handle.memId;
      const payload = bigPayloadText();
      const full = await ok<{ recallToolResult: string }>(roomy, RECALL, { m: memId, f: 'FULL' }, carol.token);
      expect(full.recallToolResult === payload).toBe(true);
      const cut = await gql<{ recallToolResult: string }>(roomy, RECALL, { m: memId, o: 0, n: 100_000 }, carol.token);
      expect(
        cut.data!.recallToolResult ===
          `${payload.slice(0, 100_000)}\n[… more: continue with recall_tool_result(mem_id='${memId}', offset=100000, max_chars=100000); chars 0–100000 of ${payload.length} shown]`,
      ).toBe(true);
      // Under this bound the payload is small: its stub keeps the v1 re-expand line.
      expect(handle.sizeTokens).toBe(o200kTokenizer.count(payload));
      expect(handle.stub.split('\n').at(-1)).toBe(
        `re-expand: recall_tool_result(mem_id='${memId}', format="full"); slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<$.a[0].b>`,
      );
      expect(handle.stub).toContain(`\nsize_original=${payload.length} chars\n`);
    });
  });
});
