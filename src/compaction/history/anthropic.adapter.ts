import type { ToolResultBlockParam, ToolUseBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { isToolResultStub } from '../../tool-results';
import { inputStub, objectArguments } from './call-arguments';
import { callsById, isRecord, type JsonRecord, placeStubs, problem, textOutput, unmatched, withPart } from './history-parts';
import { type HistoryAdapter, type HistoryProblem, type HistoryReading, type ToolCallSite, type ToolResultSite } from './history.types';

/** A message as `checkMessage` let it through; blocks are read as the SDK's types once their `type` is known. */
interface CheckedMessage {
  role: string;
  id?: string;
  content: string | ({ type: string } & JsonRecord)[];
}

/**
 * Anthropic Messages: `[{role, id?, content: string | blocks}]`; a `tool_use` block in an
 * assistant message, answered by a `tool_result` block (`tool_use_id`, `content`, `is_error`).
 */
export const anthropicAdapter: HistoryAdapter = {
  read(entries) {
    const calls: ToolCallSite[] = [];
    const pending: { block: ToolResultBlockParam; index: number; partIndex: number }[] = [];
    for (let index = 0; index < entries.length; index++) {
      const path = `messages.${index}`;
      const message = entries[index];
      const checked = checkMessage(message, path);
      if (checked) return checked;
      const { role, content, id } = message as CheckedMessage;
      if (typeof content === 'string') continue;
      content.forEach((block, partIndex) => {
        if (block.type === 'tool_use' && role === 'assistant') {
          calls.push(callSite(block as unknown as ToolUseBlockParam, index, id ?? null, partIndex));
        }
        if (block.type === 'tool_result') pending.push({ block: block as unknown as ToolResultBlockParam, index, partIndex });
      });
    }
    const byId = callsById(calls);
    const results: ToolResultSite[] = [];
    for (const { block, index, partIndex } of pending) {
      const path = `messages.${index}.content.${partIndex}`;
      const call = byId.get(block.tool_use_id);
      if (!call) return unmatched(`${path}.tool_use_id`, block.tool_use_id, 'tool_use');
      const output = textOutput(block.content, 'text');
      results.push({
        callId: block.tool_use_id,
        call,
        toolName: call.name,
        output,
        isError: block.is_error === true,
        isStub: output?.kind === 'text' && isToolResultStub(output.text),
        entryIndex: index,
        partIndex,
        idPath: `${path}.tool_use_id`,
        outputPath: `${path}.content`,
      });
    }
    return { calls, results } satisfies HistoryReading;
  },

  writeStubs(entries, placements, inputPlacements = []) {
    return placeStubs(entries, placements, inputPlacements, {
      result(message, { site, stub }) {
        const block = (message.content as JsonRecord[])[site.partIndex as number];
        return withPart(message, 'content', site.partIndex as number, { ...block, content: stub });
      },
      // The API requires `input` to be an object: the stub goes in one.
      input(message, { call, stub }) {
        const block = (message.content as ToolUseBlockParam[])[call.partIndex as number];
        return withPart(message, 'content', call.partIndex as number, { ...block, input: inputStub(stub) } satisfies ToolUseBlockParam);
      },
    });
  },
};

function callSite(block: ToolUseBlockParam, entryIndex: number, entryId: string | null, partIndex: number): ToolCallSite {
  const path = `messages.${entryIndex}.content.${partIndex}`;
  return {
    id: block.id,
    name: block.name,
    ...objectArguments(block.input ?? {}),
    entryIndex,
    entryId,
    partIndex,
    idPath: `${path}.id`,
    namePath: `${path}.name`,
    inputPath: `${path}.input`,
  };
}

/** Only what compaction relies on; unknown fields and block types pass as they are. */
function checkMessage(message: unknown, path: string): HistoryProblem | null {
  if (!isRecord(message)) return problem(path, 'must be an object');
  if (typeof message.role !== 'string') return problem(`${path}.role`, 'must be a string');
  if (message.id !== undefined && typeof message.id !== 'string') return problem(`${path}.id`, 'must be a string');
  const content = message.content;
  if (typeof content === 'string') return null;
  if (!Array.isArray(content)) return problem(`${path}.content`, 'must be a string or an array of blocks');
  for (let index = 0; index < content.length; index++) {
    const checked = checkBlock(content[index], `${path}.content.${index}`);
    if (checked) return checked;
  }
  return null;
}

function checkBlock(block: unknown, path: string): HistoryProblem | null {
  if (!isRecord(block)) return problem(path, 'must be an object');
  if (typeof block.type !== 'string') return problem(`${path}.type`, 'must be a string');
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? null : problem(`${path}.text`, 'must be a string');
    case 'tool_use':
      if (typeof block.id !== 'string') return problem(`${path}.id`, 'must be a string');
      return typeof block.name === 'string' ? null : problem(`${path}.name`, 'must be a string');
    case 'tool_result':
      if (typeof block.tool_use_id !== 'string') return problem(`${path}.tool_use_id`, 'must be a string');
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') return problem(`${path}.is_error`, 'must be a boolean');
      return null;
    default:
      return null;
  }
}
