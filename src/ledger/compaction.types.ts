/**
 * The Anthropic Messages shapes compaction reads. Every type is open (`[key: string]: unknown`)
 * because blocks and fields we do not know must pass through untouched.
 */

export interface ContentBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface TextBlock extends ContentBlock {
  readonly type: 'text';
  readonly text: string;
}

export interface ToolUseBlock extends ContentBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input?: unknown;
}

export interface ToolResultBlock extends ContentBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  /** A string, an array of text (or other) blocks, or absent. */
  readonly content?: unknown;
  readonly is_error?: boolean;
}

export interface Message {
  /** 'user' or 'assistant' in practice; any string passes through. */
  readonly role: string;
  readonly id?: string;
  readonly content: string | readonly ContentBlock[];
  readonly [key: string]: unknown;
}

export interface CompactionOptions {
  /** A result is a candidate only when its text is longer than this many characters. */
  sizeThreshold: number;
  /** The last N tool results of the whole list stay as they are. */
  keepLastN: number;
  /** Tool names whose results are never compacted. */
  excludeTools: readonly string[];
}

export interface CompactionCandidate {
  toolUseId: string;
  /** From the matching tool_use, `'unknown'` when there is none. */
  toolName: string;
  /** The matching tool_use's input, `{}` when there is none. */
  toolInput: unknown;
  /** The text the model saw: the string content, or the text blocks joined with '\n'. */
  contentText: string;
  assistantMessageIndex: number | null;
  /** The assistant message's own `id`, when the client gave one. */
  assistantMessageId: string | null;
  messageIndex: number;
  blockIndex: number;
}

export function isToolUseBlock(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

export function isToolResultBlock(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}

export function isTextBlock(block: ContentBlock): block is TextBlock {
  return block.type === 'text';
}
