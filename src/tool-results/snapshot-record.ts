import type { HandleWithStub } from './handle/tool-result-handle';

/** What a tool call returned, and the conversation and message it belongs to. */
export interface ToolResultFields {
  conversationId: string;
  messageId: string;
  toolUseId: string;
  toolName: string;
  toolInput: unknown;
  toolOutput: unknown;
}

/**
 * A stored tool-result snapshot as the repositories return it. The payloads are loaded only
 * when asked for (they can be megabytes); the handle never needs them, it is stored.
 */
export interface SnapshotRecord extends Omit<ToolResultFields, 'toolInput' | 'toolOutput'> {
  id: string;
  memId: string;
  spaceId: string;
  sizeChars: number;
  createdAt: Date;
  /** created_at with PostgreSQL's microseconds, for keyset cursors. */
  createdKey: string;
  handle: HandleWithStub;
  /** Its stub was handed out by compaction (exempt from the per-conversation cap). */
  compacted: boolean;
  /** Undefined when the read did not load the payloads. */
  toolInput?: unknown;
  toolOutput?: unknown;
}

export interface SnapshotRow {
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
  tool_input?: unknown;
  tool_output?: unknown;
}

/** Which columns a read loads besides the handle. */
export interface SnapshotColumns {
  /** tool_input: off unless the caller needs it. */
  input?: boolean;
  /** tool_output (up to megabytes): off unless the caller needs it. */
  output?: boolean;
}

/** Both payloads. */
export const WITH_PAYLOADS: SnapshotColumns = { input: true, output: true };

/** Columns of a snapshot with its stored handle; the conversation join supplies the space. Aliases: r, c. */
export function snapshotColumns(columns: SnapshotColumns = {}): string {
  return `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name, r.size_chars,
  r.summary_oneliner, r.schema_hint, r.head_preview, r.stub, r.size_tokens, r.compacted,
  to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key${columns.input ? ', r.tool_input' : ''}${
    columns.output ? ', r.tool_output' : ''
  }`;
}

export function toSnapshotRecord(row: SnapshotRow): SnapshotRecord {
  const record: SnapshotRecord = {
    id: row.id,
    memId: row.mem_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    toolUseId: row.tool_use_id,
    toolName: row.tool_name,
    sizeChars: row.size_chars,
    // MikroORM hands timestamps back as text; the key carries them in UTC with microseconds.
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
  if ('tool_input' in row) record.toolInput = row.tool_input;
  if ('tool_output' in row) record.toolOutput = row.tool_output;
  return record;
}
