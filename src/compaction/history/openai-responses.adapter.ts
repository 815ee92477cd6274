import type {
  ResponseCustomToolCall,
  ResponseCustomToolCallOutput,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { customInput, inputStubArguments, textArguments } from './call-arguments';
import {
  callsById,
  entryResult,
  isRecord,
  type JsonRecord,
  placeStubs,
  problem,
  requireString,
  textOutput,
  unmatched,
} from './history-parts';
import { type HistoryAdapter, type ToolCallSite, type ToolResultSite } from './history.types';

type FunctionCallOutput = ResponseInputItem.FunctionCallOutput;

/** Item types that call a tool of the client's, and the types answering them. */
const CALL_TYPES = new Set(['function_call', 'custom_tool_call']);
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

/**
 * The OpenAI Responses API `input` list: items such as `{type:'message'}`, `{type:'function_call',
 * call_id, name, arguments}` answered by `{type:'function_call_output', call_id, output}` (and the
 * `custom_tool_call` pair). The output's `output` becomes the stub; reasoning items, built-in tool
 * items and item ids pass as they are. The format has no error flag.
 */
export const openAiResponsesAdapter: HistoryAdapter = {
  read(entries) {
    const calls: ToolCallSite[] = [];
    const pending: { item: FunctionCallOutput | ResponseCustomToolCallOutput; index: number }[] = [];
    for (let index = 0; index < entries.length; index++) {
      const path = `messages.${index}`;
      const item = entries[index];
      if (!isRecord(item)) return problem(path, 'must be an object');
      if (item.type !== undefined && typeof item.type !== 'string') return problem(`${path}.type`, 'must be a string');
      if (typeof item.type !== 'string') continue;
      if (CALL_TYPES.has(item.type)) {
        const inputKey = item.type === 'function_call' ? 'arguments' : 'input';
        const checked = requireString(item, 'call_id', path) ?? requireString(item, 'name', path) ?? requireString(item, inputKey, path);
        if (checked) return checked;
        calls.push(callSite(item, index, inputKey));
      } else if (OUTPUT_TYPES.has(item.type)) {
        const checked = requireString(item, 'call_id', path);
        if (checked) return checked;
        pending.push({ item: item as unknown as FunctionCallOutput | ResponseCustomToolCallOutput, index });
      }
    }
    const byId = callsById(calls);
    const results: ToolResultSite[] = [];
    for (const { item, index } of pending) {
      const callId = item.call_id as string;
      const call = byId.get(callId);
      if (!call) return unmatched(`messages.${index}.call_id`, callId, 'function_call');
      results.push(entryResult(index, callId, call, textOutput(item.output, 'input_text'), 'call_id', 'output'));
    }
    return { calls, results };
  },

  writeStubs(entries, placements, inputPlacements = []) {
    return placeStubs(entries, placements, inputPlacements, {
      result: (item, { stub }) => ({ ...item, output: stub }),
      // The item is the call: `arguments` stays JSON text of an object, a custom tool's `input`
      // becomes the stub text; `id`, `call_id`, `status` and the reasoning items around it stay.
      input(item, { stub }) {
        const call = item as unknown as ResponseFunctionToolCall | ResponseCustomToolCall;
        return call.type === 'custom_tool_call'
          ? ({ ...call, input: stub } satisfies ResponseCustomToolCall)
          : ({ ...call, arguments: inputStubArguments(stub) } satisfies ResponseFunctionToolCall);
      },
    });
  },
};

function callSite(item: JsonRecord, entryIndex: number, inputKey: 'arguments' | 'input'): ToolCallSite {
  const call = item as unknown as ResponseFunctionToolCall | ResponseCustomToolCall;
  const path = `messages.${entryIndex}`;
  const input =
    inputKey === 'arguments'
      ? textArguments((call as ResponseFunctionToolCall).arguments)
      : customInput((call as ResponseCustomToolCall).input);
  return {
    id: call.call_id,
    name: call.name,
    ...input,
    entryIndex,
    entryId: typeof call.id === 'string' ? call.id : null,
    partIndex: null,
    idPath: `${path}.call_id`,
    namePath: `${path}.name`,
    inputPath: `${path}.${inputKey}`,
  };
}
