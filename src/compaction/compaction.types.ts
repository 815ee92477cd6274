import type { ToolCallSite, ToolResultSite } from './history/history.types';

/** The name `clearToolInputs` takes for every tool. */
export const ALL_TOOLS = '*';

/** What a team's compaction policy says about one tool, where the request said nothing (R-LG-4). */
export interface ToolCompactionSettings {
  exclude?: boolean;
  sizeThreshold?: number;
  keepLastN?: number;
  clearInputs?: boolean;
}

export interface CompactionOptions {
  /** A result (or call arguments) is a candidate only when longer than this many characters. */
  sizeThreshold: number;
  /** The last N tool results (and calls) of the whole list stay as they are. */
  keepLastN: number;
  /** Tool names whose results are never compacted. */
  excludeTools: readonly string[];
  /** Tool names (or `*`) whose call arguments are compacted too. */
  clearToolInputs?: readonly string[];
  /**
   * Per tool, in place of the settings above: its own threshold, its own last N (counted among
   * that tool's results and calls only), never compact, clear its inputs.
   */
  toolSettings?: ReadonlyMap<string, ToolCompactionSettings>;
}

interface CandidateBase {
  /** The id the snapshot is stored under: the call id (derived when the call has none), `#input` for arguments. */
  toolUseId: string;
  toolName: string;
  /** What is stored: the text the model read, or the JSON it was given (for arguments: the arguments). */
  payload: unknown;
  /** The own `id` of the entry holding the call, when the client gave one. */
  assistantMessageId: string | null;
}

/** A tool result to replace by its stub. */
export interface CompactionCandidate extends CandidateBase {
  kind: 'result';
  site: ToolResultSite;
  /** The matching call's arguments, `{}` when it has none. */
  toolInput: unknown;
}

/** A call whose arguments are replaced by a stub (`clearToolInputs`). */
export interface InputCandidate extends CandidateBase {
  kind: 'input';
  call: ToolCallSite;
}

export type Replacement = CompactionCandidate | InputCandidate;
