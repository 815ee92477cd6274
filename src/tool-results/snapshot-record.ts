/** What a tool call returned, and the conversation and message it belongs to. */
export interface ToolResultFields {
  conversationId: string;
  messageId: string;
  toolUseId: string;
  toolName: string;
  toolInput: unknown;
  toolOutput: unknown;
}

/** A stored tool-result snapshot as the repositories return it. */
export interface SnapshotRecord extends ToolResultFields {
  id: string;
  memId: string;
  spaceId: string;
  sizeChars: number;
  createdAt: Date;
  /** created_at with PostgreSQL's microseconds, for keyset cursors. */
  createdKey: string;
}

export interface SnapshotRow {
  id: string;
  mem_id: string;
  space_id: string;
  conversation_id: string;
  message_id: string;
  tool_use_id: string;
  tool_name: string;
  tool_input: unknown;
  tool_output: unknown;
  size_chars: number;
  created_key: string;
}

/** created_at in UTC with microseconds, the form keyset cursors carry. */
export const CREATED_KEY = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Columns of a snapshot; the conversation join supplies the space. Aliases: r, c. */
export const SNAPSHOT_COLUMNS = `r.id, r.mem_id, c.space_id, r.conversation_id, r.message_id, r.tool_use_id, r.tool_name,
  r.tool_input, r.tool_output, r.size_chars,
  to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key`;

export function toSnapshotRecord(row: SnapshotRow): SnapshotRecord {
  return {
    id: row.id,
    memId: row.mem_id,
    spaceId: row.space_id,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    toolUseId: row.tool_use_id,
    toolName: row.tool_name,
    toolInput: row.tool_input,
    toolOutput: row.tool_output,
    sizeChars: row.size_chars,
    // MikroORM hands timestamps back as text; the key carries them in UTC with microseconds.
    createdAt: new Date(row.created_key),
    createdKey: row.created_key,
  };
}
