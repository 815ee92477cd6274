import type { StoredJson } from '../common/json/stored-json';
import type { ToolResultHandle } from './handle/tool-result-handle';

/**
 * A stored tool-result snapshot, as every read returns it. The payloads are loaded only when
 * asked for (they can be megabytes); the handle never needs them, it is stored.
 */
export interface ToolResultSnapshot {
  id: string;
  memId: string;
  spaceId: string;
  conversationId: string;
  messageId: string;
  toolUseId: string;
  toolName: string;
  sizeChars: number;
  createdAt: Date;
  /** created_at with PostgreSQL's microseconds, for keyset cursors. */
  createdKey: string;
  handle: ToolResultHandle;
  /** Its stub was handed out by compaction (exempt from the per-conversation cap). */
  compacted: boolean;
  /**
   * Undefined when the read did not load the payloads. Read from the database: each its stored
   * text (StoredJson), spliced into a response as it is (an output is read by a lookup off the
   * event loop, an input parsed where the block formats it); a snapshot just written: as received.
   */
  toolInput?: unknown;
  toolOutput?: unknown;
  /** The input's size as JSON text, when a read measured it instead of loading it. */
  inputChars?: number;
}

/** Which payload columns a read loads besides the handle. */
export interface SnapshotColumns {
  /** tool_input: off unless the caller needs it. */
  input?: boolean;
  /** tool_output (up to megabytes): off unless the caller needs it. */
  output?: boolean;
}

/** The full-text search over a user's snapshots in one space (R-RC-8). */
export interface SnapshotSearch {
  /** A space of the scope's allowed set. */
  spaceId: string;
  /**
   * Words, `or`, `-word` (websearch syntax); "quoted phrases" match in the tool name and input,
   * while the output's words are stored without positions and match as words.
   */
  query: string;
  conversationId?: string | null;
  toolName?: string | null;
  since?: Date | null;
  limit: number;
}

/** A search result: the snapshot, its text rank and its place from 1. */
export interface SnapshotSearchHit {
  snapshot: ToolResultSnapshot;
  score: number;
  rank: number;
}

/**
 * A snapshot as the database returns it: the columns of every snapshot read, which are also the
 * rows of the `tool_results_recent` and `tool_results_search` functions (current bodies in schema.sql)
 * that a module above runs in a statement of its own. Payloads are null when not asked for.
 */
export interface ToolResultSnapshotRow {
  id: string;
  mem_id: string;
  space_id: string;
  conversation_id: string;
  message_id: string;
  tool_use_id: string;
  tool_name: string;
  size_chars: number;
  created_key: string;
  summary_oneliner: string;
  schema_hint: string | null;
  head_preview: string | null;
  stub: string;
  size_tokens: number;
  compacted: boolean;
  /** The payloads, when asked for: read with runSql's `storedJson`, each a StoredJson. */
  tool_input?: StoredJson | null;
  tool_output?: StoredJson | null;
  /** length(tool_input::text), when a read measured the input instead of loading it. */
  input_chars?: number | string;
  /** Place from 1, on the functions' rows. */
  rank?: string | number;
  /** Text rank, on the search's rows. */
  score?: number;
}

/** A snapshot read from the database; the payloads only when the read loaded them. */
export function toToolResultSnapshot(
  row: ToolResultSnapshotRow,
  columns: SnapshotColumns = { input: true, output: true },
): ToolResultSnapshot {
  const snapshot: ToolResultSnapshot = {
    id: row.id,
    memId: row.mem_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    toolUseId: row.tool_use_id,
    toolName: row.tool_name,
    sizeChars: row.size_chars,
    // Timestamps travel as text; the key carries them in UTC with microseconds.
    createdAt: new Date(row.created_key),
    createdKey: row.created_key,
    compacted: row.compacted,
    handle: {
      memId: row.mem_id,
      toolName: row.tool_name,
      toolCallId: row.tool_use_id,
      sizeChars: row.size_chars,
      sizeTokens: row.size_tokens,
      summaryOneliner: row.summary_oneliner,
      schemaHint: row.schema_hint,
      headPreview: row.head_preview,
      stub: row.stub,
    },
  };
  if (columns.input && 'tool_input' in row) snapshot.toolInput = row.tool_input ?? null;
  if (row.input_chars !== undefined && row.input_chars !== null) snapshot.inputChars = Number(row.input_chars);
  if (columns.output && 'tool_output' in row) snapshot.toolOutput = row.tool_output;
  return snapshot;
}

/** A search row as a hit. */
export function toSearchHit(row: ToolResultSnapshotRow, columns: SnapshotColumns): SnapshotSearchHit {
  return { snapshot: toToolResultSnapshot(row, columns), score: Number(row.score), rank: Number(row.rank) };
}
