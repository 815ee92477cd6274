/**
 * Property tests (fast-check) of the message-list entry point of compactMessages (R-LG-3,
 * R-OP-4): whatever JSON a client sends as `messages`, in whatever format it claims, the pure
 * chain — read, check, pick candidates, build the write items, write stubs — either answers or
 * throws the coded BadUserInputError naming a field of the input; nothing else escapes.
 */
import fc from 'fast-check';
import { BadUserInputError } from '../../common/errors/app-error';
import { checkCandidates, checkCompactMessagesInput, recordItemsOf } from '../compact-messages.checks';
import { findCompactionCandidates } from '../compaction';
import { isProblem, MessageFormat } from '../history/history.types';
import { readHistory } from '../history/read-history';

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
const callIds = toolUseIds;
const openAiMessage = fc.record({
  role: sometimes(fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool')),
  content: absentOr(
    sometimes(fc.oneof(fc.constant(null), text, fc.array(fc.record({ type: sometimes(fc.constant('text')), text: sometimes(text) })))),
  ),
  tool_call_id: absentOr(sometimes(callIds)),
  tool_calls: absentOr(
    sometimes(
      fc.array(
        fc.record({
          id: sometimes(callIds),
          type: sometimes(fc.constantFrom('function', 'custom')),
          function: absentOr(sometimes(fc.record({ name: sometimes(fc.string()), arguments: sometimes(fc.json()) }))),
          custom: absentOr(sometimes(fc.record({ name: sometimes(fc.string()), input: sometimes(text) }))),
        }),
        { maxLength: 3 },
      ),
    ),
  ),
});
const responsesItem = fc.oneof(
  fc.record({
    type: fc.constant('function_call'),
    call_id: sometimes(callIds),
    name: sometimes(fc.string()),
    arguments: sometimes(fc.json()),
  }),
  fc.record({
    type: fc.constant('function_call_output'),
    call_id: sometimes(callIds),
    output: sometimes(fc.oneof(text, fc.array(fc.record({ type: sometimes(fc.constant('input_text')), text: sometimes(text) })))),
  }),
  fc.record({ type: fc.constantFrom('reasoning', 'message', 'web_search_call'), id: fc.string() }),
);
const geminiContent = fc.record({
  role: absentOr(sometimes(fc.constantFrom('user', 'model'))),
  parts: sometimes(
    fc.array(
      fc.oneof(
        fc.record({ text: sometimes(text) }),
        fc.record({
          functionCall: sometimes(
            fc.record({
              name: sometimes(fc.constantFrom('lookup', 'search')),
              args: absentOr(sometimes(fc.object())),
              id: absentOr(sometimes(callIds)),
            }),
          ),
        }),
        fc.record({
          functionResponse: sometimes(
            fc.record({
              name: sometimes(fc.constantFrom('lookup', 'search')),
              response: absentOr(sometimes(fc.dictionary(fc.constantFrom('output', 'error', 'rows'), text))),
              id: absentOr(sometimes(callIds)),
            }),
          ),
        }),
      ),
      { maxLength: 4 },
    ),
  ),
});
const aiSdkPart = fc.oneof(
  fc.record({ type: fc.constant('tool-call'), toolCallId: sometimes(callIds), toolName: sometimes(fc.string()), input: fc.jsonValue() }),
  fc.record({
    type: fc.constant('tool-result'),
    toolCallId: sometimes(callIds),
    toolName: sometimes(fc.string()),
    output: sometimes(
      fc.record({
        type: sometimes(fc.constantFrom('text', 'json', 'error-text', 'error-json', 'content', 'execution-denied')),
        value: fc.jsonValue(),
      }),
    ),
  }),
  fc.record({ type: fc.constant('text'), text: sometimes(text) }),
);
const aiSdkMessage = fc.record({
  role: sometimes(fc.constantFrom('system', 'user', 'assistant', 'tool')),
  content: sometimes(fc.oneof(text, fc.array(aiSdkPart, { maxLength: 4 }))),
});
const entry = fc.oneof(message, openAiMessage, responsesItem, geminiContent, aiSdkMessage);
const messageList = fc.oneof(
  { weight: 3, arbitrary: fc.array(message, { maxLength: 8 }) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.array(openAiMessage, { maxLength: 8 }),
      fc.array(responsesItem, { maxLength: 8 }),
      fc.array(geminiContent, { maxLength: 8 }),
      fc.array(aiSdkMessage, { maxLength: 8 }),
    ),
  },
  { weight: 2, arbitrary: fc.array(entry, { maxLength: 8 }) },
  { weight: 1, arbitrary: fc.anything() },
);
const format = fc.constantFrom(...Object.values(MessageFormat));

describe('compactMessages input, property-based', () => {
  it('R-LG-3 R-OP-4 readHistory never throws: the same list back, or an error text that starts with its path', () => {
    fc.assert(
      fc.property(messageList, format, (value, messageFormat) => {
        const history = readHistory(value, messageFormat);
        if (isProblem(history)) expect(history.error.startsWith(`${history.path} `)).toBe(true);
        else expect(history.entries).toBe(value);
      }),
      { numRuns: 1000 },
    );
  });

  it('R-LG-3 R-OP-4 from any message list, read → candidates → write items → stubs, in any format, only ever throws BadUserInputError on an input field', () => {
    fc.assert(
      fc.property(
        messageList,
        format,
        fc.integer({ min: 1, max: 3000 }),
        fc.nat(4),
        (messages, messageFormat, sizeThreshold, keepLastN) => {
          try {
            const request = checkCompactMessagesInput({
              spaceId: SPACE,
              conversationId: CONVERSATION,
              messages,
              messageFormat,
              sizeThreshold,
              keepLastN,
            });
            const candidates = findCompactionCandidates(request.history.reading, request.options, CONVERSATION);
            checkCandidates(candidates);
            const items = recordItemsOf(request, candidates);
            expect(items).toHaveLength(candidates.length);
            const { adapter, entries } = request.history;
            const placements = candidates.map((candidate) => ({ site: candidate.site, stub: `[stub ${candidate.toolUseId}]` }));
            if (adapter) expect(adapter.writeStubs(entries, placements)).toHaveLength(entries.length);
            else expect(candidates).toEqual([]);
          } catch (error) {
            expect(error).toBeInstanceOf(BadUserInputError);
            expect((error as BadUserInputError).details.field).toMatch(/^input\.messages(\.|$)/);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
