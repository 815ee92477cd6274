import type { ContentBlock, Message } from './compaction.types';

export type ParsedMessages = { messages: Message[] } | { error: string; path: string };

type Check = { error: string; path: string } | null;

/**
 * Validates untrusted JSON as an Anthropic message list, naming the first offending path (e.g.
 * `messages[3].content[1].tool_use_id must be a string`). Only what compaction relies on is
 * checked; unknown fields and block types are accepted as they are. The value is returned as
 * is (not copied), so nothing about it changes.
 */
export function parseMessages(value: unknown): ParsedMessages {
  if (!Array.isArray(value)) return failure('messages', 'must be an array');
  for (let index = 0; index < value.length; index++) {
    const problem = checkMessage(value[index], `messages[${index}]`);
    if (problem) return problem;
  }
  return { messages: value as Message[] };
}

function checkMessage(message: unknown, path: string): Check {
  if (!isRecord(message)) return failure(path, 'must be an object');
  if (typeof message.role !== 'string') return failure(`${path}.role`, 'must be a string');
  if (message.id !== undefined && typeof message.id !== 'string') return failure(`${path}.id`, 'must be a string');
  const content = message.content;
  if (typeof content === 'string') return null;
  if (!Array.isArray(content)) return failure(`${path}.content`, 'must be a string or an array of blocks');
  for (let index = 0; index < content.length; index++) {
    const problem = checkBlock(content[index], `${path}.content[${index}]`);
    if (problem) return problem;
  }
  return null;
}

function checkBlock(block: unknown, path: string): Check {
  if (!isRecord(block)) return failure(path, 'must be an object');
  if (typeof block.type !== 'string') return failure(`${path}.type`, 'must be a string');
  const typed = block as ContentBlock;
  switch (typed.type) {
    case 'text':
      return typeof typed.text === 'string' ? null : failure(`${path}.text`, 'must be a string');
    case 'tool_use':
      if (typeof typed.id !== 'string') return failure(`${path}.id`, 'must be a string');
      return typeof typed.name === 'string' ? null : failure(`${path}.name`, 'must be a string');
    case 'tool_result':
      if (typeof typed.tool_use_id !== 'string') return failure(`${path}.tool_use_id`, 'must be a string');
      if (typed.is_error !== undefined && typeof typed.is_error !== 'boolean') {
        return failure(`${path}.is_error`, 'must be a boolean');
      }
      return null;
    default:
      return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function failure(path: string, problem: string): { error: string; path: string } {
  return { error: `${path} ${problem}`, path };
}
