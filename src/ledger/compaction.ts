import {
  type CompactionCandidate,
  type CompactionOptions,
  type ContentBlock,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
  isTextBlock,
  isToolResultBlock,
  isToolUseBlock,
} from './compaction.types';
import { isLedgerStub } from '../tool-results';

export { parseMessages } from './message-list.parser';
export { deterministicMessageId } from './message-id';

/**
 * Compaction in two pure phases, so the service can record snapshots in between:
 * `findCompactionCandidates` says what to replace, `applyCompaction` builds the wire view.
 */

interface ToolUseSite {
  block: ToolUseBlock;
  messageIndex: number;
}

/**
 * Every tool_result longer than the threshold and older than the last `keepLastN` tool results
 * (all of them counted, compacted or not), except errors, excluded tools, results that are
 * already our stubs, and content we could not store faithfully (non-text blocks such as images).
 * One candidate per tool_use_id, in message order.
 */
export function findCompactionCandidates(messages: readonly Message[], options: CompactionOptions): CompactionCandidate[] {
  const toolUses = indexToolUses(messages);
  const excluded = new Set(options.excludeTools);
  const results = toolResultPositions(messages);
  const protectedFrom = results.length - Math.max(0, Math.floor(options.keepLastN));
  const seen = new Set<string>();
  const candidates: CompactionCandidate[] = [];
  results.forEach(({ block, messageIndex, blockIndex }, order) => {
    if (order >= protectedFrom || block.is_error === true || seen.has(block.tool_use_id)) return;
    const contentText = toolResultText(block);
    if (contentText === null || contentText.length <= options.sizeThreshold || isLedgerStub(contentText)) return;
    const site = toolUses.get(block.tool_use_id);
    const toolName = site?.block.name ?? 'unknown';
    if (excluded.has(toolName)) return;
    seen.add(block.tool_use_id);
    const assistant = site ? messages[site.messageIndex] : undefined;
    candidates.push({
      toolUseId: block.tool_use_id,
      toolName,
      toolInput: site?.block.input ?? {},
      contentText,
      assistantMessageIndex: site ? site.messageIndex : null,
      assistantMessageId: typeof assistant?.id === 'string' ? assistant.id : null,
      messageIndex,
      blockIndex,
    });
  });
  return candidates;
}

/**
 * A new message list where each (non-error) tool_result named in the map has its `content`
 * replaced by the stub. Everything else — other fields and their key order, other blocks, other
 * messages — is carried over as is; untouched messages are shared, never copied or mutated.
 */
export function applyCompaction(messages: readonly Message[], stubsByToolUseId: ReadonlyMap<string, string>): Message[] {
  return messages.map((message) => {
    if (typeof message.content === 'string') return message;
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (!isToolResultBlock(block) || block.is_error === true) return block;
      const stub = stubsByToolUseId.get(block.tool_use_id);
      if (stub === undefined || block.content === stub) return block;
      changed = true;
      // Spreading keeps the key order: `content` stays where the client put it.
      return { ...block, content: stub };
    });
    return changed ? { ...message, content } : message;
  });
}

/**
 * The text the model saw in a tool_result: a string as is, an all-text block array joined with
 * '\n'. Null for anything else (absent content, images), which compaction leaves alone.
 */
function toolResultText(block: ToolResultBlock): string | null {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) return null;
    const candidate = part as ContentBlock;
    if (!isTextBlock(candidate) || typeof candidate.text !== 'string') return null;
    texts.push(candidate.text);
  }
  return texts.join('\n');
}

/** The first tool_use per id inside assistant messages. */
function indexToolUses(messages: readonly Message[]): Map<string, ToolUseSite> {
  const sites = new Map<string, ToolUseSite>();
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    for (const block of message.content) {
      if (isToolUseBlock(block) && !sites.has(block.id)) sites.set(block.id, { block, messageIndex });
    }
  });
  return sites;
}

function toolResultPositions(messages: readonly Message[]): { block: ToolResultBlock; messageIndex: number; blockIndex: number }[] {
  const positions: { block: ToolResultBlock; messageIndex: number; blockIndex: number }[] = [];
  messages.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      if (isToolResultBlock(block)) positions.push({ block, messageIndex, blockIndex });
    });
  });
  return positions;
}
