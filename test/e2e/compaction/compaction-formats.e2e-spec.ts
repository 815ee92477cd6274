import { findCompactionCandidates } from '../../../src/compaction/compaction';
import { isProblem, MessageFormat } from '../../../src/compaction/history/history.types';
import { readHistory } from '../../../src/compaction/history/read-history';
import { ALL_FORMATS, oddTranscript, traceIn } from '../../fixtures/history-formats.fixture';
import { PURE_DEFAULTS } from '../../support/compact-pure';
import { memberOfNewSpace, type SpaceMember } from '../../support/fixtures';
import { gql } from '../../support/graphql';
import { stubRecall } from '../../support/stub-recall';
import { createTestApp, type TestApp } from '../../support/test-app';

interface Compacted {
  messages: object[];
  messageFormat: MessageFormat;
  compactedCount: number;
  tokensBefore: number;
  tokensAfter: number;
  handles: { memId: string; toolCallId: string; stub: string }[];
}

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { messages messageFormat compactedCount tokensBefore tokensAfter handles { memId toolCallId stub } }
}`;

/** The history as this repository's own reader sees it, the test's oracle for ids and payloads. */
function readOrFail(messages: unknown, format: MessageFormat) {
  const history = readHistory(messages, format);
  if (isProblem(history)) throw new Error(history.error);
  return history;
}

describe('compactMessages in every message format (e2e)', () => {
  let t: TestApp;

  const compact = (who: SpaceMember, input: Record<string, unknown>) =>
    gql<{ compactMessages: Compacted }>(t, COMPACT, { input }, who.token);
  const { rowsOf, fullPayload } = stubRecall(() => t);

  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(ALL_FORMATS)('%s', (format) => {
    let member: SpaceMember;
    const conversationId = crypto.randomUUID();
    let first: Compacted;

    beforeAll(async () => {
      member = await memberOfNewSpace(t);
      const res = await compact(member, { spaceId: member.spaceId, conversationId, messages: traceIn(format) });
      expect(res.errors).toBeUndefined();
      first = res.data!.compactMessages;
    });

    it('R-LG-3 AUTO detects the format, and the converted fixture trace compacts to at most 25% of its tokens', () => {
      expect(first.messageFormat).toBe(format);
      expect(first.compactedCount).toBeGreaterThanOrEqual(1);
      expect(first.tokensAfter / first.tokensBefore).toBeLessThanOrEqual(0.25);
    });

    it('R-LG-3 a second call, with the format named, gives byte-identical output', async () => {
      const again = await compact(member, { spaceId: member.spaceId, conversationId, messages: traceIn(format), messageFormat: format });
      expect(JSON.stringify(again.data?.compactMessages)).toBe(JSON.stringify(first));
    });

    it('R-LG-3 keeps every call id, and differs from the input only in the replaced results', () => {
      const input = traceIn(format);
      const before = readOrFail(input, format);
      const after = readOrFail(first.messages, format);
      expect(after.reading.calls.map((call) => call.id)).toEqual(before.reading.calls.map((call) => call.id));
      expect(after.reading.results.map((result) => result.callId)).toEqual(before.reading.results.map((result) => result.callId));
      // The service's stubs, written by this format's adapter into the input at the candidates' places, are the answer byte for byte.
      const candidates = findCompactionCandidates(before.reading, PURE_DEFAULTS, conversationId);
      expect(first.handles.map((handle) => handle.toolCallId)).toEqual(candidates.map((candidate) => candidate.toolUseId));
      const expected = before.adapter!.writeStubs(
        input,
        candidates.map((candidate, index) => ({ site: candidate.site, stub: first.handles[index].stub })),
      );
      expect(JSON.stringify(first.messages)).toBe(JSON.stringify(expected));
      const replaced = new Set(candidates.map((candidate) => candidate.site.entryIndex));
      input.forEach((entry, index) => {
        if (!replaced.has(index)) expect(first.messages[index]).toStrictEqual(entry);
      });
      // Error results are never candidates.
      expect(candidates.some((candidate) => candidate.site.isError)).toBe(false);
    });

    it('R-LG-3 every stub recalls its original payload: FULL, followed to the end, rebuilds it (text exactly, JSON equal)', async () => {
      const candidates = findCompactionCandidates(readOrFail(traceIn(format), format).reading, PURE_DEFAULTS, conversationId);
      for (const [index, candidate] of candidates.entries()) {
        const rebuilt = await fullPayload(member, first.handles[index].memId);
        if (typeof candidate.payload === 'string') expect(rebuilt === candidate.payload).toBe(true);
        else expect(JSON.parse(rebuilt)).toStrictEqual(candidate.payload);
      }
    });

    it('R-LG-3 excluded tools are left as they are', async () => {
      const names = first.handles.map((handle) => handle.toolCallId);
      const input = traceIn(format);
      const toolNames = findCompactionCandidates(readOrFail(input, format).reading, PURE_DEFAULTS, conversationId).map((c) => c.toolName);
      const res = await compact(member, { spaceId: member.spaceId, conversationId, messages: input, excludeTools: toolNames });
      expect(names.length).toBeGreaterThan(0);
      expect(res.data?.compactMessages).toMatchObject({ compactedCount: 0, messageFormat: format, messages: input });
    });

    it("R-LG-3 the format's realistic transcript compacts with its oddities passed through", async () => {
      const input = oddTranscript(format);
      const res = await compact(member, { spaceId: member.spaceId, conversationId: crypto.randomUUID(), messages: input });
      expect(res.errors).toBeUndefined();
      const out = res.data!.compactMessages;
      expect(out.messageFormat).toBe(format);
      expect(out.compactedCount).toBeGreaterThanOrEqual(1);
      const before = readOrFail(input, format);
      const candidates = findCompactionCandidates(before.reading, PURE_DEFAULTS, 'unused');
      const replaced = new Set(candidates.map((candidate) => candidate.site.entryIndex));
      input.forEach((entry, index) => {
        if (!replaced.has(index)) expect(out.messages[index]).toStrictEqual(entry);
      });
    });

    it('R-LG-3 R-OP-4 bad input — a result answering no call, a non-list, mixed formats — is BAD_USER_INPUT naming the index, nothing recorded', async () => {
      const stranger = await memberOfNewSpace(t);
      const input = traceIn(format);
      const reading = readOrFail(input, format).reading;
      const lastResult = reading.results[reading.results.length - 1];
      // Dropping the entry holding the last call leaves its result answering nothing.
      const orphaned = input.filter((_, index) => index !== lastResult.call!.entryIndex);
      const foreign =
        format === MessageFormat.OPENAI_CHAT
          ? { role: 'model', parts: [{ functionCall: { name: 'lookup', args: {} } }] }
          : { role: 'tool', tool_call_id: 'call_x', content: 'x' };
      const cases: [unknown, MessageFormat, RegExp][] = [
        [orphaned, format, /^input\.messages\.\d+\./],
        [{ messages: input }, format, /^input\.messages$/],
        [[...input, foreign], MessageFormat.AUTO, /^input\.messages\.\d+$/],
        [[...input, foreign], format, /^input\.messages\.\d+$/],
      ];
      for (const [messages, messageFormat, field] of cases) {
        const res = await compact(stranger, { spaceId: stranger.spaceId, conversationId: crypto.randomUUID(), messages, messageFormat });
        expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
        expect(res.errors?.[0].extensions?.field).toMatch(field);
        expect(res.errors?.[0].message).toMatch(/^input\.messages/);
      }
      expect(await rowsOf(stranger.userId)).toBe(0);
    });
  });

  it('R-LG-3 a list with no tool call or result comes back unchanged with messageFormat AUTO; OpenAI content: null is accepted', async () => {
    const member = await memberOfNewSpace(t);
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
    ];
    const res = await compact(member, { spaceId: member.spaceId, conversationId: crypto.randomUUID(), messages });
    expect(res.data?.compactMessages).toMatchObject({ messages, messageFormat: 'AUTO', compactedCount: 0 });
  });
});
