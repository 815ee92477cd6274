import { ALL_FORMATS, oddTranscript, traceIn } from '../../../../test/fixtures/history-formats.fixture';
import { renderStub } from '../../../../test/support/tool-results-service';
import { aiSdkAdapter } from '../ai-sdk.adapter';
import { anthropicAdapter } from '../anthropic.adapter';
import { geminiAdapter } from '../gemini.adapter';
import {
  type ConcreteFormat,
  type HistoryAdapter,
  type HistoryReading,
  INPUT_STUB_KEY,
  type InputStubPlacement,
  isProblem,
  MessageFormat,
  type StubPlacement,
  type ToolCallSite,
} from '../history.types';
import { openAiChatAdapter } from '../openai-chat.adapter';
import { openAiResponsesAdapter } from '../openai-responses.adapter';
import { CONFIG_CALL, INPUT_STUB_CASES, type InputStubCase, MODULE_CALL, SENT, stubbedSlots, TEST_CALL } from './input-stub-cases';

/**
 * The history adapters' side of clearing tool inputs (R-LG-3 `clearToolInputs`): what `read`
 * says about each call (where it sits, how long its arguments are, whether they are a stub
 * already) and what `writeStubs` does with input placements, format by format.
 */

type Entry = Record<string, unknown>;

const ADAPTERS: Record<ConcreteFormat, HistoryAdapter> = {
  [MessageFormat.ANTHROPIC]: anthropicAdapter,
  [MessageFormat.OPENAI_CHAT]: openAiChatAdapter,
  [MessageFormat.OPENAI_RESPONSES]: openAiResponsesAdapter,
  [MessageFormat.GEMINI]: geminiAdapter,
  [MessageFormat.AI_SDK]: aiSdkAdapter,
};

/** The key of an entry holding calls as a list; null where the entry is the call (Responses). */
const CALL_LIST: Record<ConcreteFormat, string | null> = {
  [MessageFormat.ANTHROPIC]: 'content',
  [MessageFormat.OPENAI_CHAT]: 'tool_calls',
  [MessageFormat.OPENAI_RESPONSES]: null,
  [MessageFormat.GEMINI]: 'parts',
  [MessageFormat.AI_SDK]: 'content',
};

const OPENAI = new Set<ConcreteFormat>([MessageFormat.OPENAI_CHAT, MessageFormat.OPENAI_RESPONSES]);

function stubFor(callId: string, toolName: string, sizeChars: number): string {
  return renderStub({
    memId: `mem_01J${callId
      .toUpperCase()
      .replace(/[^A-Z]/g, '')
      .slice(0, 12)
      .padEnd(12, 'X')}`,
    toolName,
    toolCallId: `${callId}#input`,
    sizeChars,
    sizeTokens: Math.ceil(sizeChars / 4),
    summaryOneliner: 'the call arguments',
    schemaHint: null,
    headPreview: null,
  });
}

function read(adapter: HistoryAdapter, entries: readonly object[]): HistoryReading {
  const reading = adapter.read(entries);
  if (isProblem(reading)) throw new Error(reading.error);
  return reading;
}

/** The value at a site's path (`messages.2.tool_calls.0.function.arguments`). */
function at(entries: readonly object[], path: string): unknown {
  return path
    .split('.')
    .slice(1)
    .reduce<unknown>((value, key) => (value as Entry)[key], entries);
}

function callOf(reading: HistoryReading, id: string): ToolCallSite {
  const call = reading.calls.find((site) => site.id === id);
  if (!call) throw new Error(`no call ${id}`);
  return call;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** Where each call and result sits and whom it answers: what stubbing must never move. */
function pairing(reading: HistoryReading) {
  return {
    calls: reading.calls.map(({ id, name, entryIndex, partIndex, namePath }) => ({ id, name, entryIndex, partIndex, namePath })),
    results: reading.results.map(({ callId, call, toolName, entryIndex, partIndex }) => ({
      callId,
      answers: call?.id ?? null,
      callName: call?.name ?? null,
      toolName,
      entryIndex,
      partIndex,
    })),
  };
}

interface Written {
  input: object[];
  output: object[];
  inputStubs: Map<string, string>;
  placements: InputStubPlacement[];
}

/** The case's big calls written over by their input stubs (and the config result by its stub, when asked). */
function writeBig(testCase: InputStubCase, results: readonly StubPlacement[] = [], input = testCase.list(SENT)): Written {
  const adapter = ADAPTERS[testCase.format];
  const reading = read(adapter, input);
  const inputStubs = new Map(
    testCase.bigCalls.map((id) => {
      const call = callOf(reading, id);
      return [id, stubFor(id, call.name, call.inputChars)];
    }),
  );
  const placements = testCase.bigCalls.map((id) => ({ call: callOf(reading, id), stub: inputStubs.get(id) as string }));
  return { input, output: adapter.writeStubs(input, results, placements), inputStubs, placements };
}

function configResult(testCase: InputStubCase, input: readonly object[]): StubPlacement {
  const site = read(ADAPTERS[testCase.format], input).results.find((result) => result.callId === CONFIG_CALL);
  if (!site) throw new Error('no config result');
  return { site, stub: stubFor(CONFIG_CALL, 'read_file', 5000) };
}

describe.each(INPUT_STUB_CASES.map((testCase) => [testCase.format, testCase] as const))('%s input stubs', (format, testCase) => {
  const adapter = ADAPTERS[format];

  it('R-LG-3 reads where each call sits, how long its arguments are as the format holds them, and that none is a stub yet', () => {
    const input = testCase.list(SENT);
    const reading = read(adapter, input);
    expect(reading.calls.map((call) => call.id)).toEqual(expect.arrayContaining(testCase.bigCalls));
    for (const call of reading.calls) {
      const held = at(input, call.inputPath);
      expect(call.inputChars).toBe(OPENAI.has(format) ? (held as string).length : JSON.stringify(held).length);
      expect(call.inputIsStub).toBe(false);
      const list = CALL_LIST[format];
      if (list === null) {
        expect(call.partIndex).toBeNull();
        expect(call.namePath).toBe(`messages.${call.entryIndex}.name`);
      } else {
        expect(call.namePath.startsWith(`messages.${call.entryIndex}.${list}.${call.partIndex}.`)).toBe(true);
      }
    }
    for (const id of testCase.bigCalls) expect(callOf(reading, id).inputChars).toBeGreaterThan(40_000);
  });

  it('R-LG-3 replaces a call’s 40 KB arguments by the input stub, its id, name and pairing unchanged, as a request the SDK types accept', () => {
    const { input, output, inputStubs } = writeBig(testCase);
    // The expected list is typed as the SDK's request parameter (input-stub-cases.ts).
    expect(output).toStrictEqual(testCase.list(stubbedSlots(inputStubs, new Map())));
    const before = read(adapter, input);
    const after = read(adapter, output);
    expect(pairing(after)).toEqual(pairing(before));
    for (const result of after.results) if (result.callId !== null) expect(result.call?.id).toBe(result.callId);
    for (const id of testCase.bigCalls) {
      const call = callOf(after, id);
      const held = at(output, call.inputPath);
      const stub = inputStubs.get(id) as string;
      if (id === testCase.customCall) {
        expect(held).toBe(stub);
      } else if (OPENAI.has(format)) {
        expect(typeof held).toBe('string');
        expect(JSON.parse(held as string)).toStrictEqual({ [INPUT_STUB_KEY]: stub });
      } else {
        expect(held).toStrictEqual({ compacted_input: stub });
      }
      expect(call.inputChars).toBeLessThan(1000);
    }
  });

  if (testCase.customCall !== null) {
    it('R-LG-3 makes a custom tool’s input the stub text itself', () => {
      const { output, inputStubs } = writeBig(testCase);
      const call = callOf(read(adapter, output), testCase.customCall as string);
      expect(call.input).toBe(inputStubs.get(testCase.customCall as string));
      expect(call.inputIsStub).toBe(true);
    });
  }

  it('R-LG-3 shares every entry and call it does not stub, and keeps the keys of what it changes in the client’s order', () => {
    const { input, output, placements } = writeBig(testCase);
    const placed = new Map<number, Set<number | null>>();
    for (const { call } of placements) placed.set(call.entryIndex, (placed.get(call.entryIndex) ?? new Set()).add(call.partIndex));
    expect(output).toHaveLength(input.length);
    output.forEach((entry, index) => {
      const original = input[index] as Entry;
      const parts = placed.get(index);
      if (!parts) {
        expect(entry).toBe(original);
        return;
      }
      expect(entry).not.toBe(original);
      expect(Object.keys(entry)).toEqual(Object.keys(original));
      const list = CALL_LIST[format];
      for (const [key, value] of Object.entries(entry)) {
        if (key !== list) {
          // Responses: the entry is the call, and only its arguments change.
          if (value !== original[key]) expect(['arguments', 'input']).toContain(key);
          continue;
        }
        (value as Entry[]).forEach((part, partIndex) => {
          const was = (original[key] as Entry[])[partIndex];
          if (parts.has(partIndex)) {
            expect(Object.keys(part)).toEqual(Object.keys(was));
            // The call's own object (Gemini `functionCall`, OpenAI `function`) keeps its key order too.
            for (const [inner, innerValue] of Object.entries(part)) {
              if (inner !== 'input' && isPlainObject(innerValue) && isPlainObject(was[inner])) {
                expect(Object.keys(innerValue)).toEqual(Object.keys(was[inner]));
              }
            }
          } else {
            expect(part).toBe(was);
          }
        });
      }
    });
  });

  it('R-LG-3 never mutates its input: a deep-frozen list is written without a throw and stays equal', () => {
    const input = deepFreeze(testCase.list(SENT));
    const snapshot = structuredClone(input);
    const { output } = writeBig(testCase, [configResult(testCase, input)], input);
    expect(input).toStrictEqual(snapshot);
    expect(output).not.toBe(input);
  });

  it('R-LG-3 reads its own output as stubbed inputs, and writing again or from a fresh copy gives the same bytes', () => {
    const first = writeBig(testCase);
    const reading = read(adapter, first.output);
    for (const call of reading.calls) expect(call.inputIsStub).toBe(testCase.bigCalls.includes(call.id as string));
    const again = adapter.writeStubs(
      first.output,
      [],
      testCase.bigCalls.map((id) => ({ call: callOf(reading, id), stub: first.inputStubs.get(id) as string })),
    );
    expect(JSON.stringify(again)).toBe(JSON.stringify(first.output));
    expect(JSON.stringify(writeBig(testCase).output)).toBe(JSON.stringify(first.output));
    // Results are not touched by input stubs: nothing there reads as a stub.
    expect(reading.results.every((result) => !result.isStub)).toBe(true);
  });

  it('R-LG-3 applies result and input stubs of one write together, whatever the order of the input placements', () => {
    const input = testCase.list(SENT);
    const result = configResult(testCase, input);
    const { output, inputStubs, placements } = writeBig(testCase, [result], input);
    expect(output).toStrictEqual(testCase.list(stubbedSlots(inputStubs, new Map([[CONFIG_CALL, result.stub]]))));
    const reading = read(adapter, output);
    expect(reading.results.find((site) => site.callId === CONFIG_CALL)?.isStub).toBe(true);
    expect(reading.calls.filter((call) => call.inputIsStub).map((call) => call.id)).toEqual(
      reading.calls.map((call) => call.id).filter((id) => testCase.bigCalls.includes(id as string)),
    );
    const reversed = adapter.writeStubs(input, [result], [...placements].reverse());
    expect(JSON.stringify(reversed)).toBe(JSON.stringify(output));
  });

  it('R-LG-3 without input placements writes what result stubs alone always wrote', () => {
    const input = testCase.list(SENT);
    const result = configResult(testCase, input);
    const resultsOnly = adapter.writeStubs(input, [result]);
    const withNone = adapter.writeStubs(input, [result], []);
    expect(JSON.stringify(withNone)).toBe(JSON.stringify(resultsOnly));
    expect(resultsOnly).toStrictEqual(testCase.list(stubbedSlots(new Map(), new Map([[CONFIG_CALL, result.stub]]))));
    withNone.forEach((entry, index) => {
      if (index !== result.site.entryIndex) expect(entry).toBe(input[index]);
    });
    adapter.writeStubs(input, [], []).forEach((entry, index) => expect(entry).toBe(input[index]));
  });
});

describe.each(ALL_FORMATS)('%s fixtures', (format) => {
  it.each([
    ['the converted trace', traceIn],
    ['the odd transcript', oddTranscript],
  ])('R-LG-3 reads each call of %s with its place, its argument length and no stub', (_name, build) => {
    const input = build(format);
    const reading = read(ADAPTERS[format], input);
    expect(reading.calls.length).toBeGreaterThan(0);
    for (const call of reading.calls) {
      const held = at(input, call.inputPath);
      expect(call.inputChars).toBe(typeof held === 'string' && OPENAI.has(format) ? held.length : JSON.stringify(held ?? {}).length);
      expect(call.inputIsStub).toBe(false);
      const list = CALL_LIST[format];
      if (list === null) expect(call.partIndex).toBeNull();
      else expect(call.inputPath.startsWith(`messages.${call.entryIndex}.${list}.${call.partIndex}.`)).toBe(true);
    }
  });
});

describe('what counts as an input stub', () => {
  const stub = stubFor(MODULE_CALL, 'write_file', 48_000);
  const withInput = (input: unknown) => [
    { role: 'assistant', content: [{ type: 'tool_use', id: MODULE_CALL, name: 'write_file', input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: MODULE_CALL, content: 'ok' }] },
  ];

  it.each([
    { name: 'our stub under compacted_input', input: { compacted_input: stub }, expected: true },
    { name: 'another text under compacted_input', input: { compacted_input: 'see the previous turn' }, expected: false },
    { name: 'our stub beside the tool’s own keys', input: { compacted_input: stub, path: 'a.ts' }, expected: false },
    { name: 'our stub under another key', input: { content: stub }, expected: false },
    { name: 'our stub as the whole input', input: stub, expected: false },
  ])('R-LG-3 $name: inputIsStub $expected', ({ input, expected }) => {
    expect(read(anthropicAdapter, withInput(input)).calls[0].inputIsStub).toBe(expected);
  });

  it('R-LG-3 OpenAI arguments are a stub when their JSON parses to exactly the stub object', () => {
    const chat = (args: string) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: MODULE_CALL, type: 'function', function: { name: 'write_file', arguments: args } }],
      },
      { role: 'tool', tool_call_id: MODULE_CALL, content: 'ok' },
    ];
    expect(read(openAiChatAdapter, chat(JSON.stringify({ compacted_input: stub }))).calls[0].inputIsStub).toBe(true);
    expect(read(openAiChatAdapter, chat(JSON.stringify(stub))).calls[0].inputIsStub).toBe(false);
    expect(read(openAiChatAdapter, chat(`{"compacted_input": ${JSON.stringify(stub)}`)).calls[0].inputIsStub).toBe(false);
  });
});

describe('OpenAI Chat specifics', () => {
  it('R-LG-3 turns arguments that do not parse into a JSON object string too, measured as the text sent', () => {
    const truncated = `{"path":"src/exports/schedule.ts","content":"${'x'.repeat(41_000)}`;
    const input = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: MODULE_CALL, type: 'function', function: { name: 'write_file', arguments: truncated } }],
      },
      { role: 'tool', tool_call_id: MODULE_CALL, content: 'error: arguments were cut off' },
    ];
    const call = read(openAiChatAdapter, input).calls[0];
    expect(call.input).toBe(truncated);
    expect(call.inputChars).toBe(truncated.length);
    const stub = stubFor(MODULE_CALL, 'write_file', truncated.length);
    const output = openAiChatAdapter.writeStubs(input, [], [{ call, stub }]);
    const args = at(output, call.inputPath) as string;
    expect(JSON.parse(args)).toStrictEqual({ compacted_input: stub });
    expect(read(openAiChatAdapter, output).calls[0].inputIsStub).toBe(true);
  });
});

describe('Gemini specifics', () => {
  it('R-LG-3 stubs a call and a response held in one content, and an id-less call, keeping the part’s thought signature', () => {
    const big = { rows: 'r'.repeat(42_000) };
    const input = [
      {
        role: 'model',
        parts: [{ functionCall: { name: 'write_rows', args: big }, thoughtSignature: 'CiQBVKhc7oZ2' }, { text: 'and the earlier lookup:' }],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'write_rows', response: { output: 'ok' } } },
          { functionCall: { id: TEST_CALL, name: 'lookup', args: big } },
          { functionResponse: { id: TEST_CALL, name: 'lookup', response: { rows: 'l'.repeat(3000) } } },
        ],
      },
    ];
    const reading = read(geminiAdapter, input);
    expect(reading.calls.map((call) => [call.id, call.entryIndex, call.partIndex])).toEqual([
      [null, 0, 0],
      [TEST_CALL, 1, 1],
    ]);
    const inputStub = stubFor('write_rows', 'write_rows', reading.calls[0].inputChars);
    const lookupStub = stubFor(TEST_CALL, 'lookup', reading.calls[1].inputChars);
    const resultStub = stubFor(TEST_CALL, 'lookup', 3000);
    const output = geminiAdapter.writeStubs(
      input,
      [{ site: reading.results[1], stub: resultStub }],
      [
        { call: reading.calls[0], stub: inputStub },
        { call: reading.calls[1], stub: lookupStub },
      ],
    );
    expect(output).toStrictEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'write_rows', args: { compacted_input: inputStub } }, thoughtSignature: 'CiQBVKhc7oZ2' },
          input[0].parts[1],
        ],
      },
      {
        role: 'user',
        parts: [
          input[1].parts[0],
          { functionCall: { id: TEST_CALL, name: 'lookup', args: { compacted_input: lookupStub } } },
          { functionResponse: { id: TEST_CALL, name: 'lookup', response: { output: resultStub } } },
        ],
      },
    ]);
    expect((output[1] as Entry).parts as unknown[]).toHaveLength(3);
    expect(((output[1] as Entry).parts as unknown[])[0]).toBe(input[1].parts[0]);
    const after = read(geminiAdapter, output);
    expect(after.calls.map((call) => call.inputIsStub)).toEqual([true, true]);
    expect(after.results.map((result) => [result.call?.partIndex, result.isStub])).toEqual([
      [0, false],
      [1, true],
    ]);
  });
});

function isPlainObject(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
