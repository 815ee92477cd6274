/**
 * Property tests (fast-check) of the message-list entry point of compactMessages (R-LG-3,
 * R-OP-4): whatever JSON a client sends as `messages`, the pure chain — parse, check, pick
 * candidates, build the write items, apply stubs — either answers or throws the coded
 * BadUserInputError naming a field of the input; nothing else escapes.
 */
import fc from 'fast-check';
import { BadUserInputError } from '../../common/errors/app-error';
import { checkCandidates, checkCompactMessagesInput, recordItemsOf } from '../compact-messages.rules';
import { applyCompaction, findCompactionCandidates, parseMessages } from '../compaction';

const SPACE = '0b6f2a4e-3c1d-4e8f-9a7b-2c5d6e7f8a9b';
const CONVERSATION = '5b7c1f0e-2a3d-4e5f-8a9b-0c1d2e3f4a5b';

/** Mostly the right type, sometimes anything: the shapes a careless or hostile client sends. */
const sometimes = <T>(right: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: fc.anything() });
const absentOr = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ minLength: 1, maxLength: 300 }).map((s) => s.repeat(10)),
);
const toolUseIds = fc.constantFrom('toolu_a', 'toolu_b', 'toolu_c', '', 'x'.repeat(300), '__proto__');

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: sometimes(text) }),
  fc.record({
    type: fc.constant('tool_use'),
    id: sometimes(toolUseIds),
    name: sometimes(fc.oneof(fc.constantFrom('lookup_rows', 'web search', ''), fc.string())),
    input: absentOr(fc.jsonValue()),
  }),
  fc.record({
    type: fc.constant('tool_result'),
    tool_use_id: sometimes(toolUseIds),
    content: absentOr(sometimes(fc.oneof(text, fc.array(fc.record({ type: sometimes(fc.constant('text')), text: sometimes(text) }))))),
    is_error: absentOr(sometimes(fc.boolean())),
  }),
  fc.record({ type: sometimes(fc.string()) }),
  fc.anything(),
);
const message = fc.record({
  role: sometimes(fc.constantFrom('user', 'assistant')),
  id: absentOr(sometimes(fc.oneof(fc.uuid(), fc.string()))),
  content: sometimes(fc.oneof(text, fc.array(block, { maxLength: 5 }))),
});
const messageList = fc.oneof({ weight: 5, arbitrary: fc.array(message, { maxLength: 8 }) }, { weight: 1, arbitrary: fc.anything() });

describe('compactMessages input, property-based', () => {
  it('R-LG-3 R-OP-4 parseMessages never throws: the same value back, or an error text that starts with its path', () => {
    fc.assert(
      fc.property(messageList, (value) => {
        const parsed = parseMessages(value);
        if ('messages' in parsed) expect(parsed.messages).toBe(value);
        else expect(parsed.error.startsWith(`${parsed.path} `)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('R-LG-3 R-OP-4 from any message list, check → candidates → write items → stubs only ever throws BadUserInputError on an input field', () => {
    fc.assert(
      fc.property(messageList, fc.integer({ min: 1, max: 3000 }), fc.nat(4), (messages, sizeThreshold, keepLastN) => {
        try {
          const request = checkCompactMessagesInput({ spaceId: SPACE, conversationId: CONVERSATION, messages, sizeThreshold, keepLastN });
          const candidates = findCompactionCandidates(request.messages, request.options);
          checkCandidates(candidates, request.messages);
          const items = recordItemsOf(request, candidates);
          expect(items).toHaveLength(candidates.length);
          const stubs = new Map(candidates.map((candidate) => [candidate.toolUseId, `[stub ${candidate.toolUseId}]`]));
          expect(applyCompaction(request.messages, stubs)).toHaveLength(request.messages.length);
        } catch (error) {
          expect(error).toBeInstanceOf(BadUserInputError);
          expect((error as BadUserInputError).details.field).toMatch(/^input\.messages(\.|$)/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
