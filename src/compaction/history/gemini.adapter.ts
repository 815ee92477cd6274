import type { Content, FunctionCall, FunctionResponse, Part } from '@google/genai';
import { isToolResultStub } from '../../tool-results';
import { inputStub, objectArguments } from './call-arguments';
import {
  isRecord,
  type JsonRecord,
  jsonOutput,
  optionalString,
  placeStubs,
  problem,
  requireString,
  unmatched,
  withPart,
} from './history-parts';
import { type HistoryAdapter, type HistoryProblem, type ToolCallSite, type ToolResultSite } from './history.types';

/**
 * What a compacted `functionResponse.response` holds: `{output: <stub>}`, the key Gemini reads a
 * function's output from.
 */
export const GEMINI_STUB_KEY = 'output';

/**
 * Google Gemini `contents`: `[{role: 'user' | 'model', parts: [{text} | {functionCall: {name,
 * args, id?}} | {functionResponse: {name, response, id?}} | …]}]`. A response pairs with its call
 * by `id`, or, when it has none, with the earliest unanswered call of that name before it.
 * Its `response` object is stored as JSON and becomes `{output: stub}`. A response carrying an
 * `error` key and no `output` (Gemini's convention for a failed call) is an error result.
 */
export const geminiAdapter: HistoryAdapter = {
  read(entries) {
    const calls: ToolCallSite[] = [];
    const results: ToolResultSite[] = [];
    const byId = new Map<string, ToolCallSite>();
    /** Calls not answered yet, by name, oldest first: what an id-less response pairs with. */
    const waiting = new Map<string, ToolCallSite[]>();
    for (let index = 0; index < entries.length; index++) {
      const path = `messages.${index}`;
      const content = entries[index];
      if (!isRecord(content)) return problem(path, 'must be an object');
      const roleProblem = optionalString(content, 'role', path);
      if (roleProblem) return roleProblem;
      if (content.parts === undefined) continue;
      if (!Array.isArray(content.parts)) return problem(`${path}.parts`, 'must be an array');
      const parts = (content as Content).parts as unknown[];
      for (let partIndex = 0; partIndex < parts.length; partIndex++) {
        const partPath = `${path}.parts.${partIndex}`;
        const part = parts[partIndex];
        if (!isRecord(part)) return problem(partPath, 'must be an object');
        if (part.functionCall !== undefined) {
          const site = callSite(part.functionCall, index, partIndex, `${partPath}.functionCall`);
          if ('error' in site) return site;
          calls.push(site);
          if (site.id !== null && !byId.has(site.id)) byId.set(site.id, site);
          waiting.set(site.name, [...(waiting.get(site.name) ?? []), site]);
        }
        if (part.functionResponse !== undefined) {
          const site = resultSite(part.functionResponse, index, partIndex, `${partPath}.functionResponse`, byId, waiting);
          if ('error' in site) return site;
          results.push(site);
        }
      }
    }
    return { calls, results };
  },

  writeStubs(entries, placements, inputPlacements = []) {
    return placeStubs(entries, placements, inputPlacements, {
      result(content, { site, stub }) {
        const part = (content.parts as JsonRecord[])[site.partIndex as number];
        const functionResponse = { ...(part.functionResponse as JsonRecord), response: { [GEMINI_STUB_KEY]: stub } };
        return withPart(content, 'parts', site.partIndex as number, { ...part, functionResponse });
      },
      // `args` must be an object; the part's `thoughtSignature` and the call's `id` and `name` stay.
      input(content, { call, stub }) {
        const part = (content.parts as Part[])[call.partIndex as number];
        const functionCall: FunctionCall = { ...part.functionCall, args: inputStub(stub) };
        return withPart(content, 'parts', call.partIndex as number, { ...part, functionCall } satisfies Part);
      },
    });
  },
};

function callSite(value: unknown, entryIndex: number, partIndex: number, path: string): ToolCallSite | HistoryProblem {
  if (!isRecord(value)) return problem(path, 'must be an object');
  const checked = requireString(value, 'name', path) ?? optionalString(value, 'id', path);
  if (checked) return checked;
  if (value.args !== undefined && !isRecord(value.args)) return problem(`${path}.args`, 'must be an object');
  const call = value as FunctionCall;
  return {
    id: call.id ?? null,
    name: call.name as string,
    ...objectArguments(call.args ?? {}),
    entryIndex,
    entryId: null,
    partIndex,
    idPath: `${path}.${call.id === undefined ? 'name' : 'id'}`,
    namePath: `${path}.name`,
    inputPath: `${path}.args`,
  };
}

function resultSite(
  value: unknown,
  entryIndex: number,
  partIndex: number,
  path: string,
  byId: ReadonlyMap<string, ToolCallSite>,
  waiting: Map<string, ToolCallSite[]>,
): ToolResultSite | HistoryProblem {
  if (!isRecord(value)) return problem(path, 'must be an object');
  const checked = requireString(value, 'name', path) ?? optionalString(value, 'id', path);
  if (checked) return checked;
  if (value.response !== undefined && !isRecord(value.response)) return problem(`${path}.response`, 'must be an object');
  const response = value as FunctionResponse;
  const name = response.name as string;
  const queue = waiting.get(name) ?? [];
  let call: ToolCallSite | undefined;
  if (response.id !== undefined) {
    call = byId.get(response.id);
    if (!call) return unmatched(`${path}.id`, response.id, 'functionCall');
  } else {
    call = queue[0];
    if (!call) {
      return problem(
        `${path}.name`,
        `${JSON.stringify(name)} answers no functionCall of that name before it; send the call with its response, or drop both`,
      );
    }
  }
  const answered = queue.indexOf(call);
  if (answered >= 0) queue.splice(answered, 1);
  const body = response.response;
  // Multimodal response parts cannot be stored faithfully: such a response is left as it is.
  const hasParts = Array.isArray(response.parts) && response.parts.length > 0;
  const output = body === undefined || hasParts ? null : jsonOutput(body);
  const keys = body === undefined ? [] : Object.keys(body);
  return {
    // An id-less response answering a call that has an id is stored under the call's id.
    callId: response.id ?? call.id,
    call,
    toolName: name,
    output,
    isError: body !== undefined && 'error' in body && !(GEMINI_STUB_KEY in body),
    isStub:
      keys.length === 1 &&
      keys[0] === GEMINI_STUB_KEY &&
      typeof body?.[GEMINI_STUB_KEY] === 'string' &&
      isToolResultStub(body[GEMINI_STUB_KEY]),
    entryIndex,
    partIndex,
    idPath: `${path}.${response.id !== undefined ? 'id' : 'name'}`,
    outputPath: `${path}.response`,
  };
}
