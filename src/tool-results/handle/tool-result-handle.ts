/**
 * The compact descriptor of one recorded tool result. `memId` is the public address the model
 * passes back to `recall_tool_result`; every other field only feeds the deterministic stub.
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
}

/** A handle with the stub rendered from it: what is stored with the snapshot and served. */
export interface HandleWithStub extends ToolResultHandle {
  stub: string;
}
