import { payloadText, readJsonText } from '../../common/text/json-text';
import { countTokens } from '../../common/text/tokenizer';
import type { ToolResultInput } from '../models/tool-result.input';
import { applicableRules } from '../summarizer/summarize-tool-result';
import { BUILT_IN_SUMMARY_RULE_REGISTRY } from '../summarizer/built-in-summary-rules';
import type { SummaryRuleRegistry } from '../summarizer/summary-rule.types';
import { type HandleFields, handleFields } from './handle-fields';
import { renderStub, type StubOptions } from './stub';
import type { StubSource, ToolResultHandle } from './tool-result-handle';

/** What a handle is built from: a tool result exactly as the client sent it, with its address and size. */
export type HandleSource = Pick<ToolResultInput, 'toolName' | 'toolUseId' | 'toolInput' | 'toolOutput'> & {
  memId: string;
  sizeChars: number;
  /** The payload text's tokens when the caller counted them already (off the main thread, for a large one). */
  sizeTokens?: number;
  /** `payloadText(toolOutput)` when the caller serialized it already. */
  text?: string;
  /** The fields read from the payload when the caller read them already (off the main thread, for a large one). */
  fields?: HandleFields;
};

/**
 * A snapshot's handle and stub (R-LG-1), built once when the snapshot is written, from the
 * payload as received (its key order), and stored with it: every later read serves these
 * stored bytes, so a stub handed out never changes. `registry`: the summary rules in force for
 * the writer's team at that moment (R-RC-3); a rule set later changes no stored handle.
 */
export function buildHandle(
  source: HandleSource,
  options?: StubOptions,
  registry: SummaryRuleRegistry = BUILT_IN_SUMMARY_RULE_REGISTRY,
): ToolResultHandle {
  const handle = stubSourceOf(source, registry);
  return withStub(handle, renderStub(handle, options));
}

/** The handle without its stub: what the stub is rendered from (the write path renders it off the event loop). */
export function stubSourceOf(source: HandleSource, registry: SummaryRuleRegistry = BUILT_IN_SUMMARY_RULE_REGISTRY): StubSource {
  const text = source.text ?? payloadText(source.toolOutput);
  // Parsed once here for both the summary and the schema hint (a JSON text can be megabytes).
  const fields =
    source.fields ??
    handleFields(
      readJsonText(source.toolOutput),
      { text, isText: typeof source.toolOutput === 'string' },
      applicableRules(registry, source.toolName, source.toolInput),
    );
  return {
    memId: source.memId,
    toolName: source.toolName,
    toolCallId: source.toolUseId,
    sizeChars: source.sizeChars,
    sizeTokens: source.sizeTokens ?? countTokens(text),
    summaryOneliner: fields.summaryOneliner,
    schemaHint: fields.schemaHint,
    headPreview: fields.headPreview,
    textLines: fields.textLines,
  };
}

/** The stored handle: its fields and the stub rendered from them (the line count only shapes the stub). */
export function withStub(handle: StubSource, stub: string): ToolResultHandle {
  const { textLines: _lines, ...stored } = handle;
  return { ...stored, stub };
}
