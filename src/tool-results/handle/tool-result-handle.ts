/**
 * The compact descriptor of one recorded tool result, stored with its snapshot and served as is.
 * `memId` is the public address the model passes back to `recall_tool_result`; `stub` is the
 * deterministic text that replaces the payload on the wire, rendered from the other fields.
 */
export interface ToolResultHandle {
  memId: string;
  toolName: string;
  toolCallId: string;
  sizeChars: number;
  /** Tokens of the payload as the model saw it (the project's one tokenizer). */
  sizeTokens: number;
  summaryOneliner: string;
  schemaHint: string | null;
  headPreview: string | null;
  stub: string;
}

/** What the stub is rendered from: the handle without it, and the line count of a multi-line text payload. */
export type StubSource = Omit<ToolResultHandle, 'stub'> & { textLines?: number | null };
