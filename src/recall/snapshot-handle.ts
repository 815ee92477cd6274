import { summarizeToolResult } from './block/summarize-tool-result';
import { readJsonText } from './json-text';
import { headPreview } from './ledger/head-preview';
import { schemaHint } from './ledger/schema-hint';
import { renderStub } from './ledger/stub';
import type { ToolResultHandle } from './ledger/tool-result-handle';

export interface HandleSource {
  memId: string;
  toolName: string;
  toolUseId: string;
  sizeChars: number;
  toolInput: unknown;
  toolOutput: unknown;
}

export interface HandleWithStub extends ToolResultHandle {
  stub: string;
}

/** The text the model saw: a string output as is, any other JSON serialized. */
export function payloadText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** A snapshot's handle (R-LG-1): derived from stored fields only, so it never changes. */
export function handleOf(source: HandleSource): HandleWithStub {
  // Parsed once here for both the summary and the schema hint (a JSON text can be megabytes).
  const output = readJsonText(source.toolOutput);
  const handle: ToolResultHandle = {
    memId: source.memId,
    toolName: source.toolName,
    toolCallId: source.toolUseId,
    sizeChars: source.sizeChars,
    summaryOneliner: summarizeToolResult(source.toolName, source.toolInput, output),
    schemaHint: schemaHint(output),
    headPreview: headPreview(payloadText(source.toolOutput)),
  };
  return { ...handle, stub: renderStub(handle) };
}
