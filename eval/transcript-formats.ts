import { GEMINI_STUB_KEY } from '../src/compaction/history/gemini.adapter';
import { isRecord, type JsonRecord } from '../src/compaction/history/history-parts';
import { readHistory } from '../src/compaction/history/read-history';
import {
  type ConcreteFormat,
  type HistoryProblem,
  isProblem,
  MessageFormat,
  type ToolCallSite,
  type ToolResultSite,
} from '../src/compaction/history/history.types';
import { TranscriptBlock, TranscriptMessage } from './transcript';

/*
 * A recording's `messages` may be in any wire format `compactMessages` takes (`messageFormat`,
 * ANTHROPIC when absent). The graders read one shape, the Messages API's content blocks, so a
 * recording is turned into it here: the tool calls and results as the service's own history
 * adapters read them (`readHistory`, so the eval and compaction agree on ids, names and inputs),
 * and the text by a small reader per format.
 */

/** The formats a recording may name; AUTO is not one: a recording says what it is. */
export const RECORDING_FORMATS: readonly ConcreteFormat[] = [
  MessageFormat.ANTHROPIC,
  MessageFormat.OPENAI_CHAT,
  MessageFormat.OPENAI_RESPONSES,
  MessageFormat.GEMINI,
  MessageFormat.AI_SDK,
];

type Side = TranscriptMessage['role'];

/** One block of the transcript, with where it sat in the recording, to put the blocks in order. */
interface Piece {
  entry: number;
  order: number;
  side: Side;
  block: TranscriptBlock;
}

/** What a per-format reader yields for one list entry: its text, in part order. */
interface TextPiece {
  entry: number;
  order: number;
  side: Side;
  text: string;
}

type TextReader = (entries: readonly object[]) => TextPiece[] | HistoryProblem;

/**
 * A recording's messages as the Anthropic-shaped turns the graders read: the model's text and
 * tool_use blocks in order, the tool results fed back as tool_result blocks, consecutive blocks
 * of one side in one message. Throws, naming `source` and the offending path, when the messages
 * do not read in `format` or hold something a transcript cannot carry.
 */
export function transcriptMessagesFrom(messages: unknown, format: ConcreteFormat, source: string): TranscriptMessage[] {
  const refuse = (found: HistoryProblem) => new Error(`${source}: messages do not read as ${format}: ${found.error}`);
  const history = readHistory(messages, format);
  if (isProblem(history)) throw refuse(history);
  const texts = TEXT_READERS[format](history.entries);
  if (isProblem(texts)) throw refuse(texts);

  const pieces: Piece[] = texts.map(({ entry, order, side, text }) => ({ entry, order, side, block: { type: 'text', text } }));
  const ids = new Map<ToolCallSite, string>();
  for (const [index, call] of history.reading.calls.entries()) {
    if (!isRecord(call.input)) throw refuse({ path: call.inputPath, error: `${call.inputPath} must be a JSON object (a tool_use input)` });
    // Gemini lets a call go without an id; its response pairs by name, and the transcript by this one.
    const id = call.id ?? `${format.toLowerCase()}_call_${index}`;
    ids.set(call, id);
    const block: TranscriptBlock = { type: 'tool_use', id, name: call.name, input: call.input };
    pieces.push({ entry: call.entryIndex, order: callOrder(call), side: 'assistant', block });
  }
  for (const result of history.reading.results) {
    const id = result.call ? ids.get(result.call) : undefined;
    if (id === undefined) throw refuse({ path: result.idPath, error: `${result.idPath} answers no tool call` });
    const content = resultText(result, format);
    if (content === null) {
      throw refuse({ path: result.outputPath, error: `${result.outputPath} must be text or a JSON object (a tool_result's content)` });
    }
    const block: TranscriptBlock = { type: 'tool_result', tool_use_id: id, content };
    pieces.push({ entry: result.entryIndex, order: result.partIndex ?? 0, side: 'user', block });
  }

  pieces.sort((a, b) => a.entry - b.entry || a.order - b.order);
  const turns: TranscriptMessage[] = [];
  for (const { side, block } of pieces) {
    const last = turns[turns.length - 1];
    if (last?.role === side) last.content.push(block);
    else turns.push({ role: side, content: [block] });
  }
  return turns;
}

/** Chat Completions holds a message's tool calls apart from (and after) its content parts. */
const AFTER_CONTENT = 1_000_000;

/**
 * Where a call sat inside its entry. The sites carry it only in their paths:
 * `messages.2.content.1.name`, `messages.2.parts.0.functionCall.name`,
 * `messages.2.tool_calls.0.function.name`, or `messages.2.name` for a Responses item.
 */
function callOrder(call: ToolCallSite): number {
  const [, , key, index] = call.namePath.split('.');
  if (key === 'content' || key === 'parts') return Number(index);
  if (key === 'tool_calls') return AFTER_CONTENT + Number(index);
  return 0;
}

/** The text the model read: text as is, Gemini's `{output: text}` as that text, other JSON as JSON text. */
function resultText(result: ToolResultSite, format: ConcreteFormat): string | null {
  const output = result.output;
  if (output === null) return null;
  if (output.kind === 'text') return output.text;
  const value = output.value;
  const geminiText =
    format === MessageFormat.GEMINI && isRecord(value) && Object.keys(value).length === 1 ? value[GEMINI_STUB_KEY] : undefined;
  return typeof geminiText === 'string' ? geminiText : JSON.stringify(value);
}

const TEXT_READERS: Record<ConcreteFormat, TextReader> = {
  [MessageFormat.ANTHROPIC]: (entries) =>
    readEach(entries, (message, path, entry) => {
      const side = sideOf(message.role, { assistant: 'assistant', user: 'user' }, `${path}.role`);
      if (typeof side !== 'string') return side;
      return textParts(message.content, `${path}.content`, entry, side, (block, blockPath) => {
        if (block.type === 'text') return block.text as string;
        if (block.type === 'tool_result' || (block.type === 'tool_use' && side === 'assistant')) return SKIP;
        if (block.type === 'thinking' || block.type === 'redacted_thinking') return SKIP;
        return unexpected(`${blockPath}.type`, 'text, tool_use (assistant) or tool_result blocks');
      });
    }),

  [MessageFormat.OPENAI_CHAT]: (entries) =>
    readEach(entries, (message, path, entry) => {
      const side = sideOf(message.role, { assistant: 'assistant', user: 'user', tool: 'user' }, `${path}.role`);
      if (typeof side !== 'string') return side;
      if (message.role === 'tool') return []; // its content is the tool result
      if (message.function_call !== undefined && message.function_call !== null) {
        return unexpected(`${path}.function_call`, 'tool_calls (the legacy function_call is not read)');
      }
      if (message.tool_calls !== undefined && message.tool_calls !== null && message.role !== 'assistant') {
        return unexpected(`${path}.tool_calls`, 'tool_calls on assistant messages only');
      }
      if (Array.isArray(message.tool_calls)) {
        const odd = message.tool_calls.findIndex((call) => !isRecord(call) || call.type !== 'function');
        if (odd >= 0) return unexpected(`${path}.tool_calls.${odd}.type`, "'function' tool calls");
      }
      if (message.content === null || message.content === undefined) return [];
      return textParts(message.content, `${path}.content`, entry, side, (part, partPath) => {
        if (part.type === 'text' && typeof part.text === 'string') return part.text;
        if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
        return unexpected(`${partPath}.type`, 'text or refusal parts');
      });
    }),

  [MessageFormat.OPENAI_RESPONSES]: (entries) =>
    readEach(entries, (item, path, entry) => {
      if (item.type === 'function_call' || item.type === 'function_call_output' || item.type === 'reasoning') return [];
      if (item.type !== 'message' && item.type !== undefined) {
        return unexpected(`${path}.type`, 'message, function_call, function_call_output or reasoning items');
      }
      const side = sideOf(item.role, { assistant: 'assistant', user: 'user' }, `${path}.role`);
      if (typeof side !== 'string') return side;
      return textParts(item.content, `${path}.content`, entry, side, (part, partPath) => {
        if ((part.type === 'output_text' || part.type === 'input_text') && typeof part.text === 'string') return part.text;
        if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
        return unexpected(`${partPath}.type`, 'output_text, input_text or refusal parts');
      });
    }),

  [MessageFormat.GEMINI]: (entries) =>
    readEach(entries, (content, path, entry) => {
      const side = sideOf(content.role, { model: 'assistant', user: 'user' }, `${path}.role`);
      if (typeof side !== 'string') return side;
      return textParts(content.parts, `${path}.parts`, entry, side, (part, partPath) => {
        if (part.functionCall !== undefined) {
          return side === 'assistant' ? SKIP : unexpected(partPath, "functionCall parts in role 'model' only");
        }
        if (part.functionResponse !== undefined) {
          return side === 'user' ? SKIP : unexpected(partPath, "functionResponse parts in role 'user' only");
        }
        if (typeof part.text !== 'string') return unexpected(partPath, 'text, functionCall or functionResponse parts');
        return part.thought === true ? SKIP : part.text; // a thought summary is not the answer
      });
    }),

  [MessageFormat.AI_SDK]: (entries) =>
    readEach(entries, (message, path, entry) => {
      const side = sideOf(message.role, { assistant: 'assistant', user: 'user', tool: 'user' }, `${path}.role`);
      if (typeof side !== 'string') return side;
      return textParts(message.content, `${path}.content`, entry, side, (part, partPath) => {
        if (part.type === 'text' && typeof part.text === 'string') return part.text;
        if (part.type === 'reasoning') return SKIP;
        if (part.type === 'tool-call' && message.role === 'assistant') return SKIP;
        if (part.type === 'tool-result' && message.role === 'tool') return SKIP;
        return unexpected(`${partPath}.type`, 'text, reasoning, tool-call (assistant) or tool-result (tool) parts');
      });
    }),
};

/** A part read elsewhere (a tool call or result) or not graded (reasoning). */
const SKIP = Symbol('skip');

function readEach(
  entries: readonly object[],
  read: (entry: JsonRecord, path: string, index: number) => TextPiece[] | HistoryProblem,
): TextPiece[] | HistoryProblem {
  const pieces: TextPiece[] = [];
  for (const [index, entry] of entries.entries()) {
    const found = read(entry as JsonRecord, `messages.${index}`, index);
    if (isProblem(found)) return found;
    pieces.push(...found);
  }
  return pieces;
}

function sideOf(role: unknown, sides: Record<string, Side>, path: string): Side | HistoryProblem {
  if (typeof role === 'string' && Object.hasOwn(sides, role)) return sides[role];
  return unexpected(path, `role ${Object.keys(sides).join(', ')} (a recording holds the model's turns and the results fed back)`);
}

/** A string as one text; a list part by part, `text` saying what each part is. */
function textParts(
  content: unknown,
  path: string,
  entry: number,
  side: Side,
  text: (part: JsonRecord, path: string) => string | typeof SKIP | HistoryProblem,
): TextPiece[] | HistoryProblem {
  if (typeof content === 'string') return [{ entry, order: 0, side, text: content }];
  if (!Array.isArray(content)) return unexpected(path, 'a string or a list of parts');
  const pieces: TextPiece[] = [];
  for (const [order, part] of (content as unknown[]).entries()) {
    if (!isRecord(part)) return unexpected(`${path}.${order}`, 'objects');
    const found = text(part, `${path}.${order}`);
    if (found === SKIP) continue;
    if (typeof found !== 'string') return found;
    pieces.push({ entry, order, side, text: found });
  }
  return pieces;
}

function unexpected(path: string, allowed: string): HistoryProblem {
  return { path, error: `${path} is not something a recording may hold here (allowed: ${allowed})` };
}
