import type {
  ChatCompletionMessageCustomToolCall,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { customInput, inputStubArguments, textArguments } from './call-arguments';
import { callsById, entryResult, isRecord, placeStubs, problem, requireString, textOutput, unmatched, withPart } from './history-parts';
import { type HistoryAdapter, type HistoryProblem, type ToolCallSite, type ToolResultSite } from './history.types';

/**
 * OpenAI Chat Completions: `[{role, content: string | parts | null, tool_calls?, tool_call_id?, …}]`.
 * An assistant message's `tool_calls` (`function` or `custom`) are answered by `role: 'tool'`
 * messages; the tool message's `content` becomes the stub. The format has no error flag.
 */
export const openAiChatAdapter: HistoryAdapter = {
  read(entries) {
    const calls: ToolCallSite[] = [];
    const pending: { message: ChatCompletionToolMessageParam; index: number }[] = [];
    for (let index = 0; index < entries.length; index++) {
      const path = `messages.${index}`;
      const message = entries[index];
      if (!isRecord(message)) return problem(path, 'must be an object');
      if (typeof message.role !== 'string') return problem(`${path}.role`, 'must be a string');
      if (message.role === 'tool') {
        const checked = requireString(message, 'tool_call_id', path);
        if (checked) return checked;
        pending.push({ message: message as unknown as ChatCompletionToolMessageParam, index });
      }
      if (message.tool_calls === undefined || message.tool_calls === null) continue;
      if (!Array.isArray(message.tool_calls)) return problem(`${path}.tool_calls`, 'must be an array');
      for (let callIndex = 0; callIndex < message.tool_calls.length; callIndex++) {
        const site = callSite(message.tool_calls[callIndex], index, typeof message.id === 'string' ? message.id : null, callIndex);
        if ('error' in site) return site;
        if (site.name !== null) calls.push(site as ToolCallSite);
      }
    }
    const byId = callsById(calls);
    const results: ToolResultSite[] = [];
    for (const { message, index } of pending) {
      const call = byId.get(message.tool_call_id);
      if (!call) return unmatched(`messages.${index}.tool_call_id`, message.tool_call_id, 'tool call');
      results.push(entryResult(index, message.tool_call_id, call, textOutput(message.content, 'text'), 'tool_call_id', 'content'));
    }
    return { calls, results };
  },

  writeStubs(entries, placements, inputPlacements = []) {
    return placeStubs(entries, placements, inputPlacements, {
      result: (message, { stub }) => ({ ...message, content: stub }),
      // `arguments` stays JSON text of an object, what the API and the tool's schema expect;
      // a custom tool's `input` is free text, so the stub is the text.
      input(message, { call, stub }) {
        const toolCall = (message.tool_calls as ChatCompletionMessageToolCall[])[call.partIndex as number];
        const written: ChatCompletionMessageToolCall =
          toolCall.type === 'custom'
            ? { ...toolCall, custom: { ...toolCall.custom, input: stub } }
            : { ...toolCall, function: { ...toolCall.function, arguments: inputStubArguments(stub) } };
        return withPart(message, 'tool_calls', call.partIndex as number, written);
      },
    });
  },
};

/** A `function` or `custom` tool call; another type is passed over (name null), not refused. */
function callSite(
  value: unknown,
  entryIndex: number,
  entryId: string | null,
  partIndex: number,
): (Omit<ToolCallSite, 'name'> & { name: string | null }) | HistoryProblem {
  const path = `messages.${entryIndex}.tool_calls.${partIndex}`;
  if (!isRecord(value)) return problem(path, 'must be an object');
  const idProblem = requireString(value, 'id', path);
  if (idProblem) return idProblem;
  const site = { id: value.id as string, entryIndex, entryId, partIndex, idPath: `${path}.id` };
  if (value.type === 'function') {
    if (!isRecord(value.function)) return problem(`${path}.function`, 'must be an object');
    const fn = value.function as unknown as ChatCompletionMessageFunctionToolCall.Function;
    const checked =
      requireString(value.function, 'name', `${path}.function`) ?? requireString(value.function, 'arguments', `${path}.function`);
    if (checked) return checked;
    return {
      ...site,
      name: fn.name,
      ...textArguments(fn.arguments),
      namePath: `${path}.function.name`,
      inputPath: `${path}.function.arguments`,
    };
  }
  if (value.type === 'custom') {
    if (!isRecord(value.custom)) return problem(`${path}.custom`, 'must be an object');
    const custom = value.custom as unknown as ChatCompletionMessageCustomToolCall.Custom;
    const checked = requireString(value.custom, 'name', `${path}.custom`) ?? requireString(value.custom, 'input', `${path}.custom`);
    if (checked) return checked;
    return { ...site, name: custom.name, ...customInput(custom.input), namePath: `${path}.custom.name`, inputPath: `${path}.custom.input` };
  }
  return { ...site, name: null, input: null, inputChars: 0, inputIsStub: false, namePath: path, inputPath: path };
}
