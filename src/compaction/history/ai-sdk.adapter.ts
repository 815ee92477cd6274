import type { ModelMessage, ToolCallPart, ToolResultPart } from 'ai';
import { isToolResultStub } from '../../tool-results';
import { inputStub, objectArguments } from './call-arguments';
import {
  callsById,
  isRecord,
  type JsonRecord,
  jsonOutput,
  placeStubs,
  problem,
  requireString,
  textOutput,
  unmatched,
  withPart,
} from './history-parts';
import { type HistoryAdapter, type HistoryProblem, type ToolCallSite, type ToolOutput, type ToolResultSite } from './history.types';

const ERROR_OUTPUTS = new Set(['error-text', 'error-json']);

/**
 * The AI SDK's `ModelMessage` list: `[{role: 'system' | 'user' | 'assistant' | 'tool', content}]`;
 * an assistant `tool-call` part (`toolCallId`, `toolName`, `input`) is answered by a `tool-result`
 * part of a tool message, whose `output` becomes `{type: 'text', value: stub}`. `error-text` and
 * `error-json` outputs are error results. Results a provider ran itself (inside the assistant
 * message) are the provider's and stay as they are.
 */
export const aiSdkAdapter: HistoryAdapter = {
  read(entries) {
    const calls: ToolCallSite[] = [];
    const pending: { part: ToolResultPart; index: number; partIndex: number }[] = [];
    for (let index = 0; index < entries.length; index++) {
      const path = `messages.${index}`;
      const message = entries[index];
      if (!isRecord(message)) return problem(path, 'must be an object');
      if (typeof message.role !== 'string') return problem(`${path}.role`, 'must be a string');
      const content = message.content;
      if (typeof content === 'string') continue;
      if (!Array.isArray(content)) return problem(`${path}.content`, 'must be a string or an array of parts');
      const role = (message as ModelMessage).role;
      for (let partIndex = 0; partIndex < content.length; partIndex++) {
        const partPath = `${path}.content.${partIndex}`;
        const part = content[partIndex] as unknown;
        if (!isRecord(part)) return problem(partPath, 'must be an object');
        if (typeof part.type !== 'string') return problem(`${partPath}.type`, 'must be a string');
        const checked = checkPart(part, partPath);
        if (checked) return checked;
        if (part.type === 'tool-call' && role === 'assistant') calls.push(callSite(part as unknown as ToolCallPart, index, partIndex));
        if (part.type === 'tool-result' && role === 'tool') pending.push({ part: part as unknown as ToolResultPart, index, partIndex });
      }
    }
    const byId = callsById(calls);
    const results: ToolResultSite[] = [];
    for (const { part, index, partIndex } of pending) {
      const path = `messages.${index}.content.${partIndex}`;
      const call = byId.get(part.toolCallId);
      if (!call) return unmatched(`${path}.toolCallId`, part.toolCallId, 'tool-call');
      const output = outputOf(part.output);
      results.push({
        callId: part.toolCallId,
        call,
        toolName: part.toolName,
        output,
        isError: ERROR_OUTPUTS.has(part.output.type),
        isStub: part.output.type === 'text' && isToolResultStub(part.output.value),
        entryIndex: index,
        partIndex,
        idPath: `${path}.toolCallId`,
        outputPath: `${path}.output`,
      });
    }
    return { calls, results };
  },

  writeStubs(entries, placements, inputPlacements = []) {
    return placeStubs(entries, placements, inputPlacements, {
      result(message, { site, stub }) {
        const part = (message.content as JsonRecord[])[site.partIndex as number];
        return withPart(message, 'content', site.partIndex as number, { ...part, output: { type: 'text', value: stub } });
      },
      // Providers send `input` as the tool's JSON arguments, an object; `providerOptions` stay.
      input(message, { call, stub }) {
        const part = (message.content as ToolCallPart[])[call.partIndex as number];
        return withPart(message, 'content', call.partIndex as number, { ...part, input: inputStub(stub) } satisfies ToolCallPart);
      },
    });
  },
};

function checkPart(part: JsonRecord, path: string): HistoryProblem | null {
  if (part.type === 'tool-call') return requireString(part, 'toolCallId', path) ?? requireString(part, 'toolName', path);
  if (part.type !== 'tool-result') return null;
  const checked = requireString(part, 'toolCallId', path) ?? requireString(part, 'toolName', path);
  if (checked) return checked;
  if (!isRecord(part.output)) return problem(`${path}.output`, 'must be an object');
  const typeProblem = requireString(part.output, 'type', `${path}.output`);
  if (typeProblem) return typeProblem;
  const { type, value } = part.output;
  if ((type === 'text' || type === 'error-text') && typeof value !== 'string') return problem(`${path}.output.value`, 'must be a string');
  if (type === 'content' && !Array.isArray(value)) return problem(`${path}.output.value`, 'must be an array of parts');
  return null;
}

function callSite(part: ToolCallPart, entryIndex: number, partIndex: number): ToolCallSite {
  const path = `messages.${entryIndex}.content.${partIndex}`;
  return {
    id: part.toolCallId,
    name: part.toolName,
    ...objectArguments(part.input ?? {}),
    entryIndex,
    entryId: null,
    partIndex,
    idPath: `${path}.toolCallId`,
    namePath: `${path}.toolName`,
    inputPath: `${path}.input`,
  };
}

/** `text` and all-text `content` as text, `json` as JSON; anything else is not stored. */
function outputOf(output: ToolResultPart['output']): ToolOutput | null {
  switch (output.type) {
    case 'text':
      return { kind: 'text', text: output.value };
    case 'json':
      return output.value === undefined ? null : jsonOutput(output.value);
    case 'content':
      return textOutput(output.value, 'text');
    default:
      return null;
  }
}
