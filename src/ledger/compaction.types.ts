import type { ToolResultSite } from './history/history.types';

export interface CompactionOptions {
  /** A result is a candidate only when its payload is longer than this many characters. */
  sizeThreshold: number;
  /** The last N tool results of the whole list stay as they are. */
  keepLastN: number;
  /** Tool names whose results are never compacted. */
  excludeTools: readonly string[];
}

export interface CompactionCandidate {
  site: ToolResultSite;
  /** The call id, or one derived when the call has none (`derivedCallId`). */
  toolUseId: string;
  toolName: string;
  /** The matching call's arguments, `{}` when it has none. */
  toolInput: unknown;
  /** What is stored: the text the model read, or the JSON object it was given. */
  payload: unknown;
  /** The own `id` of the entry holding the call, when the client gave one. */
  assistantMessageId: string | null;
}
