import type { MessageCreateParams } from '@anthropic-ai/sdk/resources/messages';
import type { Content } from '@google/genai';
import type { ModelMessage } from 'ai';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { ResponseInput } from 'openai/resources/responses/responses';
import { type ConcreteFormat, MessageFormat } from '../history.types';

/**
 * One exchange per wire format for clearing tool inputs (R-LG-3 `clearToolInputs`): an assistant
 * turn with parallel calls — two `write_file` calls carrying 40 KB of source each, a small
 * `read_file` call whose result is large, and (OpenAI formats) a custom `apply_patch` call with a
 * 40 KB free-text input — answered in the next entries, with the format's signatures, ids and
 * cache markers around them.
 *
 * Each list is built from `Slots`: given the values as sent it is the client's list; given the
 * stubs it is what `writeStubs` must answer. Either way it is typed as the SDK's request
 * parameter, so the expected output is checked at compile time to be a request the provider's
 * own client accepts.
 */

export const MODULE_CALL = 'call_write_module';
export const TEST_CALL = 'call_write_test';
export const CONFIG_CALL = 'call_read_config';
const PATCH_CALL = 'call_apply_patch';

function sourceLines(name: string): string {
  return Array.from(
    { length: 560 },
    (_, i) => `export const ${name}${i} = scheduleExport({ every: ${(i % 24) + 1}, keepDays: ${30 + (i % 60)} });`,
  ).join('\n');
}

const MODULE_ARGS = { path: 'src/exports/schedule.ts', content: sourceLines('exportJob') };
const TEST_ARGS = { path: 'src/exports/schedule.spec.ts', content: sourceLines('expectedJob') };
const PATCH_TEXT = `*** Begin Patch\n*** Update File: src/exports/runner.ts\n${sourceLines('+runnerStep')}\n*** End Patch`;
const CONFIG_ARGS = { path: 'config/exports.yaml' };
const CONFIG_TEXT = Array.from({ length: 120 }, (_, i) => `job_${i}:\n  every: ${(i % 24) + 1}h\n  keep_days: ${30 + i}`).join('\n');

/** The values input and result stubbing may replace, as sent or as written. */
export interface Slots {
  /** Arguments held as an object (Anthropic, Gemini, AI SDK). */
  args<T>(callId: string, sent: T): T | { compacted_input: string };
  /** OpenAI `function` arguments: JSON text. */
  argumentsText(callId: string, sent: object): string;
  /** A custom tool's free-text input. */
  customInput(callId: string, sent: string): string;
  /** The result's stub, or null when the result is as sent. */
  resultStub(callId: string): string | null;
}

/** The values as the client sent them. */
export const SENT: Slots = {
  args: (_id, sent) => sent,
  argumentsText: (_id, sent) => JSON.stringify(sent),
  customInput: (_id, sent) => sent,
  resultStub: () => null,
};

/** The values written over by input stubs (by call id) and result stubs (by the result's call id). */
export function stubbedSlots(inputStubs: ReadonlyMap<string, string>, resultStubs: ReadonlyMap<string, string>): Slots {
  return {
    args: (id, sent) => (inputStubs.has(id) ? { compacted_input: inputStubs.get(id) as string } : sent),
    argumentsText: (id, sent) => JSON.stringify(inputStubs.has(id) ? { compacted_input: inputStubs.get(id) } : sent),
    customInput: (id, sent) => inputStubs.get(id) ?? sent,
    resultStub: (id) => resultStubs.get(id) ?? null,
  };
}

export interface InputStubCase {
  format: ConcreteFormat;
  list(slots: Slots): object[];
  /** The calls with 40 KB arguments. */
  bigCalls: string[];
  /** The custom tool call among them, if the format has custom tools. */
  customCall: string | null;
}

function anthropic(s: Slots): MessageCreateParams['messages'] {
  return [
    { role: 'user', content: 'Write the export scheduler and its test, and show me the exports config.' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Two files to write, one to read; all three at once.', signature: 'EqQBCkgIARABGAIiQHk7' },
        { type: 'text', text: 'Writing both files and reading the config.' },
        { type: 'tool_use', id: MODULE_CALL, name: 'write_file', input: s.args(MODULE_CALL, MODULE_ARGS) },
        { type: 'tool_use', id: CONFIG_CALL, name: 'read_file', input: s.args(CONFIG_CALL, CONFIG_ARGS) },
        { type: 'tool_use', id: TEST_CALL, name: 'write_file', input: s.args(TEST_CALL, TEST_ARGS), cache_control: { type: 'ephemeral' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: MODULE_CALL, content: 'wrote src/exports/schedule.ts' },
        { type: 'tool_result', tool_use_id: CONFIG_CALL, content: s.resultStub(CONFIG_CALL) ?? CONFIG_TEXT },
        { type: 'tool_result', tool_use_id: TEST_CALL, content: [{ type: 'text', text: 'wrote src/exports/schedule.spec.ts' }] },
      ],
    },
    { role: 'assistant', content: 'Both files are written; the config schedules 120 jobs.' },
  ];
}

function openAiChat(s: Slots): ChatCompletionCreateParams['messages'] {
  return [
    { role: 'system', content: 'You edit the repository with the tools given.' },
    { role: 'user', content: 'Write the export scheduler and its test, patch the runner, and show me the exports config.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: MODULE_CALL, type: 'function', function: { name: 'write_file', arguments: s.argumentsText(MODULE_CALL, MODULE_ARGS) } },
        { id: CONFIG_CALL, type: 'function', function: { name: 'read_file', arguments: s.argumentsText(CONFIG_CALL, CONFIG_ARGS) } },
        { id: TEST_CALL, type: 'function', function: { name: 'write_file', arguments: s.argumentsText(TEST_CALL, TEST_ARGS) } },
        { id: PATCH_CALL, type: 'custom', custom: { name: 'apply_patch', input: s.customInput(PATCH_CALL, PATCH_TEXT) } },
      ],
    },
    { role: 'tool', tool_call_id: MODULE_CALL, content: 'wrote src/exports/schedule.ts' },
    { role: 'tool', tool_call_id: CONFIG_CALL, content: s.resultStub(CONFIG_CALL) ?? CONFIG_TEXT },
    { role: 'tool', tool_call_id: TEST_CALL, content: [{ type: 'text', text: 'wrote src/exports/schedule.spec.ts' }] },
    { role: 'tool', tool_call_id: PATCH_CALL, content: 'patch applied to src/exports/runner.ts' },
    { role: 'assistant', content: 'Both files are written and the runner patched; the config schedules 120 jobs.' },
  ];
}

function openAiResponses(s: Slots): ResponseInput {
  return [
    { role: 'user', content: 'Write the export scheduler and its test, patch the runner, and show me the exports config.' },
    { type: 'reasoning', id: 'rs_68a1', summary: [], encrypted_content: 'gAAAAABoqX3k0w' },
    {
      type: 'function_call',
      id: 'fc_68a2',
      call_id: MODULE_CALL,
      name: 'write_file',
      arguments: s.argumentsText(MODULE_CALL, MODULE_ARGS),
      status: 'completed',
    },
    {
      type: 'function_call',
      id: 'fc_68a3',
      call_id: CONFIG_CALL,
      name: 'read_file',
      arguments: s.argumentsText(CONFIG_CALL, CONFIG_ARGS),
      status: 'completed',
    },
    {
      type: 'function_call',
      id: 'fc_68a4',
      call_id: TEST_CALL,
      name: 'write_file',
      arguments: s.argumentsText(TEST_CALL, TEST_ARGS),
      status: 'completed',
    },
    { type: 'custom_tool_call', id: 'ctc_68a5', call_id: PATCH_CALL, name: 'apply_patch', input: s.customInput(PATCH_CALL, PATCH_TEXT) },
    { type: 'function_call_output', call_id: MODULE_CALL, output: 'wrote src/exports/schedule.ts' },
    { type: 'function_call_output', call_id: CONFIG_CALL, output: s.resultStub(CONFIG_CALL) ?? CONFIG_TEXT },
    { type: 'function_call_output', call_id: TEST_CALL, output: [{ type: 'input_text', text: 'wrote src/exports/schedule.spec.ts' }] },
    { type: 'custom_tool_call_output', call_id: PATCH_CALL, output: 'patch applied to src/exports/runner.ts' },
    {
      type: 'message',
      role: 'assistant',
      id: 'msg_68a6',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Both files are written and the runner patched.', annotations: [] }],
    },
  ];
}

function gemini(s: Slots): Content[] {
  return [
    { role: 'user', parts: [{ text: 'Write the export scheduler and its test, and show me the exports config.' }] },
    {
      role: 'model',
      parts: [
        {
          functionCall: { id: MODULE_CALL, name: 'write_file', args: s.args(MODULE_CALL, MODULE_ARGS) },
          thoughtSignature: 'CiQBVKhc7oZ2',
        },
        { functionCall: { id: CONFIG_CALL, name: 'read_file', args: s.args(CONFIG_CALL, CONFIG_ARGS) } },
        { functionCall: { id: TEST_CALL, name: 'write_file', args: s.args(TEST_CALL, TEST_ARGS) } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { id: MODULE_CALL, name: 'write_file', response: { output: 'wrote src/exports/schedule.ts' } } },
        { functionResponse: { id: CONFIG_CALL, name: 'read_file', response: { output: s.resultStub(CONFIG_CALL) ?? CONFIG_TEXT } } },
        { functionResponse: { id: TEST_CALL, name: 'write_file', response: { output: 'wrote src/exports/schedule.spec.ts' } } },
      ],
    },
    { role: 'model', parts: [{ text: 'Both files are written; the config schedules 120 jobs.' }] },
  ];
}

function aiSdk(s: Slots): ModelMessage[] {
  return [
    { role: 'system', content: 'You edit the repository with the tools given.' },
    { role: 'user', content: [{ type: 'text', text: 'Write the export scheduler and its test, and show me the exports config.' }] },
    {
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Two files to write, one to read.',
          providerOptions: { anthropic: { signature: 'EqQBCkgIARABGAIiQHk7' } },
        },
        { type: 'tool-call', toolCallId: MODULE_CALL, toolName: 'write_file', input: s.args(MODULE_CALL, MODULE_ARGS) },
        { type: 'tool-call', toolCallId: CONFIG_CALL, toolName: 'read_file', input: s.args(CONFIG_CALL, CONFIG_ARGS) },
        {
          type: 'tool-call',
          toolCallId: TEST_CALL,
          toolName: 'write_file',
          input: s.args(TEST_CALL, TEST_ARGS),
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: MODULE_CALL,
          toolName: 'write_file',
          output: { type: 'text', value: 'wrote src/exports/schedule.ts' },
        },
        {
          type: 'tool-result',
          toolCallId: CONFIG_CALL,
          toolName: 'read_file',
          output: { type: 'text', value: s.resultStub(CONFIG_CALL) ?? CONFIG_TEXT },
        },
        { type: 'tool-result', toolCallId: TEST_CALL, toolName: 'write_file', output: { type: 'json', value: { written: true } } },
      ],
    },
    { role: 'assistant', content: 'Both files are written; the config schedules 120 jobs.' },
  ];
}

export const INPUT_STUB_CASES: readonly InputStubCase[] = [
  { format: MessageFormat.ANTHROPIC, list: anthropic, bigCalls: [MODULE_CALL, TEST_CALL], customCall: null },
  { format: MessageFormat.OPENAI_CHAT, list: openAiChat, bigCalls: [MODULE_CALL, TEST_CALL, PATCH_CALL], customCall: PATCH_CALL },
  {
    format: MessageFormat.OPENAI_RESPONSES,
    list: openAiResponses,
    bigCalls: [MODULE_CALL, TEST_CALL, PATCH_CALL],
    customCall: PATCH_CALL,
  },
  { format: MessageFormat.GEMINI, list: gemini, bigCalls: [MODULE_CALL, TEST_CALL], customCall: null },
  { format: MessageFormat.AI_SDK, list: aiSdk, bigCalls: [MODULE_CALL, TEST_CALL], customCall: null },
];
