import { countJsonArray } from '../../../src/common/text/json-array-tokens';
import { findCompactionCandidates, INPUT_ID_SUFFIX } from '../../../src/compaction/compaction';
import { type ConcreteFormat, INPUT_STUB_KEY, isProblem, MessageFormat } from '../../../src/compaction/history/history.types';
import { readHistory } from '../../../src/compaction/history/read-history';
import type { AnthropicMessage } from '../../fixtures/agent-trace.fixture';
import { ALL_FORMATS, anthropicTraceIn } from '../../fixtures/history-formats.fixture';
import { PURE_DEFAULTS } from '../../support/compact-pure';
import { setCompactionPolicy } from '../../support/compaction-policies';
import { memberOfNewSpace, type SpaceMember } from '../../support/fixtures';
import { gql } from '../../support/graphql';
import { stubRecall } from '../../support/stub-recall';
import { newMember, newSpace } from '../../support/tenancy';
import { createTestApp, identity, type TestApp } from '../../support/test-app';

interface Compacted {
  messages: object[];
  messageFormat: MessageFormat;
  triggered: boolean;
  compactedCount: number;
  clearedInputCount: number;
  tokensBefore: number;
  tokensAfter: number;
  handles: { memId: string; toolCallId: string; stub: string }[];
}

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) {
    messages messageFormat triggered compactedCount clearedInputCount tokensBefore tokensAfter handles { memId toolCallId stub }
  }
}`;

const WRITE_FILE_ID = 'toolu_write_report';

/** Deterministic source-like text of about `chars` characters. */
function fileText(module: number, chars: number): string {
  const lines: string[] = [];
  for (let line = 1; lines.join('\n').length < chars; line++) {
    lines.push(`// module ${module} line ${line}: export const value${line} = compute(${line * (module + 3)}, "${'k'.repeat(line % 7)}");`);
  }
  return lines.join('\n');
}

/**
 * An agent reading eight files of growing size (some with `grep`), writing a 40 KB report with
 * `write_file`, then reading two small files: eight large results, one large argument.
 */
function pressureTrace(): AnthropicMessage[] {
  const messages: AnthropicMessage[] = [{ role: 'user', content: 'Audit the modules and write a report to docs/report.md.' }];
  for (let module = 0; module < 8; module++) {
    const name = module % 3 === 2 ? 'grep' : 'read_file';
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading module ${module}.` },
        { type: 'tool_use', id: `toolu_read_${module}`, name, input: { path: `src/module-${module}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_read_${module}`, content: fileText(module, 3000 + 1500 * module) }],
    });
  }
  messages.push({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Writing the report.' },
      { type: 'tool_use', id: WRITE_FILE_ID, name: 'write_file', input: { path: 'docs/report.md', content: fileText(99, 40_960) } },
    ],
  });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: WRITE_FILE_ID, content: 'wrote 40960 bytes' }] });
  for (let extra = 0; extra < 2; extra++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_small_${extra}`, name: 'read_file', input: { path: `README-${extra}.md` } }],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_small_${extra}`, content: 'short file' }] });
  }
  messages.push({ role: 'assistant', content: 'The report is written.' });
  return messages;
}

function readOrFail(messages: unknown, format: MessageFormat) {
  const history = readHistory(messages, format);
  if (isProblem(history)) throw new Error(history.error);
  return history;
}

/** The call's arguments on the wire, as its format holds them. */
function wireArguments(messages: readonly object[], format: ConcreteFormat, callId: string): unknown {
  const call = readOrFail(messages, format).reading.calls.find((c) => c.id === callId)!;
  const entry = messages[call.entryIndex] as Record<string, unknown>;
  switch (format) {
    case MessageFormat.ANTHROPIC:
      return ((entry.content as Record<string, unknown>[])[call.partIndex!] as { input: unknown }).input;
    case MessageFormat.OPENAI_CHAT:
      return ((entry.tool_calls as Record<string, unknown>[])[call.partIndex!] as { function: { arguments: unknown } }).function.arguments;
    case MessageFormat.OPENAI_RESPONSES:
      return entry.arguments;
    case MessageFormat.GEMINI:
      return ((entry.parts as Record<string, unknown>[])[call.partIndex!] as { functionCall: { args: unknown } }).functionCall.args;
    case MessageFormat.AI_SDK:
      return ((entry.content as Record<string, unknown>[])[call.partIndex!] as { input: unknown }).input;
  }
}

describe('compactMessages under pressure: trigger, target, tool inputs (e2e)', () => {
  let t: TestApp;

  const compact = (who: SpaceMember, input: Record<string, unknown>) =>
    gql<{ compactMessages: Compacted }>(t, COMPACT, { input }, who.token);
  const compacted = async (who: SpaceMember, input: Record<string, unknown>): Promise<Compacted> => {
    const res = await compact(who, input);
    expect(res.errors).toBeUndefined();
    return res.data!.compactMessages;
  };
  const { rowsOf, fullPayload } = stubRecall(() => t);

  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(ALL_FORMATS)('%s', (format) => {
    let member: SpaceMember;
    let input: object[];
    let tokens: number;
    const conversationId = crypto.randomUUID();

    beforeAll(async () => {
      member = await memberOfNewSpace(t);
      input = anthropicTraceIn(format, pressureTrace());
      tokens = countJsonArray(input).tokens;
    });
    const base = () => ({ spaceId: member.spaceId, conversationId, messages: input });

    it('R-LG-3 at or under triggerTokens the list comes back deep-equal, triggered false, nothing recorded', async () => {
      const out = await compacted(member, { ...base(), triggerTokens: tokens, targetTokens: 1000 });
      expect(out).toMatchObject({ triggered: false, compactedCount: 0, clearedInputCount: 0, tokensBefore: tokens, tokensAfter: tokens });
      expect(out.handles).toEqual([]);
      expect(out.messages).toStrictEqual(input);
      expect(await rowsOf(member.userId)).toBe(0);
    });

    it('R-LG-3 over triggerTokens, targetTokens replaces the oldest eligible results, only as many as reach it', async () => {
      const history = readOrFail(input, format);
      const eligible = findCompactionCandidates(history.reading, PURE_DEFAULTS, conversationId);
      expect(eligible.length).toBeGreaterThanOrEqual(5);
      // An unreachable target replaces every eligible result: the stubs each count can use.
      const all = await compacted(member, { ...base(), triggerTokens: tokens - 1, targetTokens: 0 });
      expect(all).toMatchObject({ triggered: true, compactedCount: eligible.length });
      expect(all.handles.map((h) => h.toolCallId)).toEqual(eligible.map((c) => c.toolUseId));
      const wireWith = (count: number) =>
        history.adapter!.writeStubs(
          input,
          eligible.slice(0, count).map((candidate, index) => ({ site: candidate.site, stub: all.handles[index].stub })),
        );
      const tokensWith = (count: number) => countJsonArray(wireWith(count)).tokens;
      for (const needed of [1, 3]) {
        // A target just reached by `needed` replacements, and not by one fewer.
        const target = tokensWith(needed);
        const out = await compacted(member, { ...base(), triggerTokens: tokens - 1, targetTokens: target });
        expect(out).toMatchObject({ triggered: true, compactedCount: needed, tokensBefore: tokens });
        expect(out.tokensAfter).toBeLessThanOrEqual(target);
        expect(out.tokensAfter).toBe(countJsonArray(out.messages).tokens);
        expect(tokensWith(needed - 1)).toBeGreaterThan(target);
        expect(out.handles.map((h) => h.toolCallId)).toEqual(eligible.slice(0, needed).map((c) => c.toolUseId));
        expect(JSON.stringify(out.messages)).toBe(JSON.stringify(wireWith(needed)));
      }
    });

    it('R-LG-3 without trigger or target every eligible result is replaced, as before', async () => {
      const unset = await compacted(member, base());
      const unreachable = await compacted(member, { ...base(), triggerTokens: 1, targetTokens: 0 });
      expect(unset.triggered).toBe(true);
      expect(JSON.stringify(unset.messages)).toBe(JSON.stringify(unreachable.messages));
    });

    it('R-LG-3 clearToolInputs: a 40 KB write_file argument is a stub on the wire, valid for the format; FULL recall gives it back', async () => {
      const original = readOrFail(input, format).reading.calls.find((c) => c.id === WRITE_FILE_ID)!;
      expect(original.inputChars).toBeGreaterThan(40_000);
      const request = { ...base(), clearToolInputs: ['write_file'], keepLastN: 1 };
      const out = await compacted(member, request);
      expect(out.clearedInputCount).toBe(1);
      const handle = out.handles.find((h) => h.toolCallId === `${WRITE_FILE_ID}${INPUT_ID_SUFFIX}`)!;
      expect(handle).toBeDefined();

      const wire = wireArguments(out.messages, format, WRITE_FILE_ID);
      const stubbed = typeof wire === 'string' ? (JSON.parse(wire) as unknown) : wire;
      expect(stubbed).toEqual({ [INPUT_STUB_KEY]: handle.stub });
      if (format === MessageFormat.OPENAI_CHAT || format === MessageFormat.OPENAI_RESPONSES) expect(typeof wire).toBe('string');
      else expect(wire).toEqual(expect.any(Object));

      // The call keeps its id and name; every result still pairs with its call.
      const before = readOrFail(input, format).reading;
      const after = readOrFail(out.messages, format).reading;
      expect(after.calls.map((c) => [c.id, c.name])).toEqual(before.calls.map((c) => [c.id, c.name]));
      expect(after.results.map((r) => [r.callId, r.call?.id])).toEqual(before.results.map((r) => [r.callId, r.call?.id]));
      expect(after.calls.find((c) => c.id === WRITE_FILE_ID)!.inputIsStub).toBe(true);

      expect(JSON.parse(await fullPayload(member, handle.memId))).toStrictEqual(original.input);

      // Byte-stable, and idempotent when the wire view comes back.
      const again = await compacted(member, request);
      expect(JSON.stringify(again.messages)).toBe(JSON.stringify(out.messages));
      const resent = await compacted(member, { ...request, messages: out.messages });
      expect(resent).toMatchObject({ compactedCount: 0, clearedInputCount: 0 });
      expect(JSON.stringify(resent.messages)).toBe(JSON.stringify(out.messages));
    });
  });

  describe('team compaction policies', () => {
    const toolsCompacted = (out: Compacted) => [...new Set(out.handles.map((h) => h.toolCallId.replace(/_\d+$/, '')))].sort();

    it('R-LG-4 "never compact read_file" and "clear write_file inputs" are honoured when the request says nothing; another team is unaffected', async () => {
      const admin = await identity(['admin']);
      const spaceId = await newSpace(t, admin);
      const member = { ...(await newMember(t, admin, [spaceId], ['memory:read', 'memory:write'])), spaceId };
      await setCompactionPolicy(t, admin, 'read_file', { neverCompact: true });
      await setCompactionPolicy(t, admin, 'write_file', { clearInputs: true, keepLastN: 0 });
      const stranger = await memberOfNewSpace(t);
      const input = pressureTrace();
      const request = (who: SpaceMember, extra: Record<string, unknown> = {}) => ({
        spaceId: who.spaceId,
        conversationId: crypto.randomUUID(),
        messages: input,
        ...extra,
      });

      const governed = await compacted(member, request(member));
      // Only the grep results (modules 2 and 5) and the write_file arguments go.
      expect(governed.handles.map((h) => h.toolCallId)).toEqual(['toolu_read_2', 'toolu_read_5', `${WRITE_FILE_ID}${INPUT_ID_SUFFIX}`]);
      expect(governed).toMatchObject({ compactedCount: 2, clearedInputCount: 1 });

      // A request that names the setting itself gives it for every tool.
      const overridden = await compacted(member, request(member, { excludeTools: [], clearToolInputs: [] }));
      expect(overridden).toMatchObject({ compactedCount: 8, clearedInputCount: 0 });

      // Another team: the defaults, read_file compacted, the arguments left alone.
      const elsewhere = await compacted(stranger, request(stranger));
      expect(elsewhere).toMatchObject({ compactedCount: 8, clearedInputCount: 0 });
      expect(toolsCompacted(elsewhere)).toEqual(['toolu_read']);
    });
  });
});
