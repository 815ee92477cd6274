import { AppError, BadUserInputError, ErrorCode, NotFoundError } from '../../common/errors/app-error';
import {
  checkCompactMessagesInput,
  policiesMayApply,
  recordItemsOf,
  relocateRecordError,
  withTeamPolicies,
} from '../compact-messages.checks';
import { deterministicMessageId, findCompactionCandidates } from '../compaction';
import { MessageFormat } from '../history/history.types';
import { BIG_PAYLOAD_TOOL_USE_ID, bigPayloadText, buildProductResearchTrace } from '../../../test/fixtures/agent-trace.fixture';

const SPACE = '0B6F2A4E-3C1D-4E8F-9A7B-2C5D6E7F8A9B';
const CONVERSATION = 'c0ffee00-3c1d-4e8f-9a7b-2c5d6e7f8a9b';

function fieldOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, field: error.details.field, message: error.message } : error;
  }
  return 'no error';
}

describe('checkCompactMessagesInput', () => {
  const base = { spaceId: SPACE, conversationId: CONVERSATION, messages: buildProductResearchTrace() };

  it('R-LG-3 fills the defaults, also for an explicit null, and lower-cases the ids', () => {
    const request = checkCompactMessagesInput({
      ...base,
      sizeThreshold: null,
      keepLastN: null,
      excludeTools: null,
      clearAtLeastTokens: null,
    });
    expect(request).toMatchObject({
      spaceId: SPACE.toLowerCase(),
      conversationId: CONVERSATION,
      options: { sizeThreshold: 2000, keepLastN: 3, excludeTools: [] },
      clearAtLeastTokens: 0,
    });
    expect(request.history.entries).toBe(base.messages);
    expect(request.history.format).toBe(MessageFormat.ANTHROPIC);
  });

  it('R-LG-3 R-OP-4 names the offending field, inside the message list too', () => {
    const broken = [
      { role: 'user', content: 'hi' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'x' },
          { type: 'tool_result', tool_use_id: 5 },
        ],
      },
    ];
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, messages: broken }))).toEqual({
      code: ErrorCode.BAD_USER_INPUT,
      field: 'input.messages.1.content.1.tool_use_id',
      message: 'input.messages.1.content.1.tool_use_id must be a string.',
    });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, sizeThreshold: 0 }))).toMatchObject({ field: 'input.sizeThreshold' });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, keepLastN: -1 }))).toMatchObject({ field: 'input.keepLastN' });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, clearAtLeastTokens: -5 }))).toMatchObject({
      field: 'input.clearAtLeastTokens',
    });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, excludeTools: Array.from({ length: 101 }, () => 'x') }))).toMatchObject({
      field: 'input.excludeTools',
    });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, excludeTools: ['ok', ''] }))).toMatchObject({
      field: 'input.excludeTools.1',
    });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, spaceId: 'x' }))).toMatchObject({ field: 'input.spaceId' });
    expect(checkCompactMessagesInput({ ...base, excludeTools: Array.from({ length: 100 }, () => 'x') }).options.excludeTools).toHaveLength(
      100,
    );
  });
});

describe('recordItemsOf', () => {
  it("R-LG-3 stores the content text under the assistant message's UUID, or one derived from conversation and tool_use id", () => {
    const request = checkCompactMessagesInput({
      spaceId: SPACE,
      conversationId: CONVERSATION,
      messages: buildProductResearchTrace(),
      sizeThreshold: 100,
      keepLastN: 0,
    });
    const candidates = findCompactionCandidates(request.history.reading, request.options, CONVERSATION);
    const items = recordItemsOf(request, candidates);
    expect(items[0]).toMatchObject({ toolName: 'search_categories', messageId: '3f0c9a52-6d1e-4b7a-9c2f-1a8e5d7b4c60' });
    expect(items[1]).toEqual({
      spaceId: SPACE.toLowerCase(),
      conversationId: CONVERSATION,
      messageId: deterministicMessageId(CONVERSATION, BIG_PAYLOAD_TOOL_USE_ID),
      toolUseId: BIG_PAYLOAD_TOOL_USE_ID,
      toolName: 'search_products',
      toolInput: candidates[1].toolInput,
      toolOutput: bigPayloadText(),
    });
  });

  it('R-LG-3 takes a non-UUID message id as no id', () => {
    const messages = buildProductResearchTrace().map((m, i) => (i === 3 ? { ...m, id: 'msg_01XYZ' } : m));
    const request = checkCompactMessagesInput({ spaceId: SPACE, conversationId: CONVERSATION, messages });
    const [item] = recordItemsOf(request, findCompactionCandidates(request.history.reading, request.options, CONVERSATION));
    expect(item.messageId).toBe(deterministicMessageId(CONVERSATION, BIG_PAYLOAD_TOOL_USE_ID));
  });
});

describe('relocateRecordError', () => {
  const request = checkCompactMessagesInput({
    spaceId: SPACE,
    conversationId: CONVERSATION,
    messages: buildProductResearchTrace(),
    sizeThreshold: 100,
    keepLastN: 0,
  });
  const candidates = findCompactionCandidates(request.history.reading, request.options, CONVERSATION);

  it("R-LG-3 points a write-path field at the client's message, block or argument", () => {
    const relocate = (field: string) => relocateRecordError(new BadUserInputError(field, `${field} is wrong.`), 'compaction', candidates);
    expect(relocate('compaction.0.messageId')).toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
      message: 'input.messages.1.id is wrong.',
      details: { field: 'input.messages.1.id' },
    });
    expect(relocate('compaction.1.toolOutput')).toMatchObject({ details: { field: 'input.messages.4.content.0.content' } });
    expect(relocate('compaction.1.toolInput')).toMatchObject({ details: { field: 'input.messages.3.content.1.input' } });
    expect(relocate('compaction.0.spaceId')).toMatchObject({ details: { field: 'input.spaceId' } });
  });

  it('R-LG-3 leaves other errors as they are', () => {
    const notFound = new NotFoundError('Conversation', CONVERSATION);
    expect(relocateRecordError(notFound, 'compaction', candidates)).toBe(notFound);
    const plain = new Error('boom');
    expect(relocateRecordError(plain, 'compaction', candidates)).toBe(plain);
  });
});

describe('trigger, target and team policies', () => {
  const base = { spaceId: SPACE, conversationId: CONVERSATION, messages: buildProductResearchTrace() };

  it('R-LG-3 a target alone is also the trigger; a target over the trigger is refused naming both', () => {
    expect(checkCompactMessagesInput({ ...base, targetTokens: 500 })).toMatchObject({ triggerTokens: 500, targetTokens: 500 });
    expect(checkCompactMessagesInput(base)).toMatchObject({ triggerTokens: null, targetTokens: null });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, triggerTokens: 100, targetTokens: 500 }))).toMatchObject({
      field: 'input.targetTokens',
      message: expect.stringContaining('must not exceed input.triggerTokens (100)'),
    });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, triggerTokens: -1 }))).toMatchObject({ field: 'input.triggerTokens' });
    expect(fieldOf(() => checkCompactMessagesInput({ ...base, clearToolInputs: [''] }))).toMatchObject({
      field: 'input.clearToolInputs.0',
      message: expect.stringContaining('(or "*" for every tool)'),
    });
  });

  it('R-LG-4 a team policy fills only what the request left unsaid', () => {
    const policies = new Map([
      ['read_file', { neverCompact: true, keepLastN: null, sizeThreshold: null, clearInputs: false }],
      ['write_file', { neverCompact: false, keepLastN: 1, sizeThreshold: 500, clearInputs: true }],
    ]);
    const unsaid = withTeamPolicies(checkCompactMessagesInput(base), policies);
    expect(unsaid.toolSettings).toEqual(
      new Map([
        ['read_file', { exclude: true }],
        ['write_file', { keepLastN: 1, sizeThreshold: 500, clearInputs: true }],
      ]),
    );
    const said = checkCompactMessagesInput({ ...base, excludeTools: [], keepLastN: 3, sizeThreshold: 2000, clearToolInputs: [] });
    expect(policiesMayApply(said)).toBe(false);
    expect(withTeamPolicies(said, policies)).toBe(said.options);
    expect(withTeamPolicies(checkCompactMessagesInput({ ...base, sizeThreshold: 10 }), policies).toolSettings?.get('write_file')).toEqual({
      keepLastN: 1,
      clearInputs: true,
    });
  });
});
